"""The order MindSpore's runtime executes a kernel graph's kernels in, from its actor sets.

A kernel graph dump (``graph_build_*.ir``) prints its nodes in a topological order, which
for inference nets is the execution order. For a training step it is not: the runtime runs
weight gradients and optimizer updates interleaved with the backward pass. The runtime
names each kernel actor ``<index>_<full name>`` as it walks the graph's execution order
(``GenerateActorIdByKernel``, a process-wide counter), and the final actor set prints that
name on an ``# AID :`` line::

    %2 = kernel_graph0:Conv2D-op0(%1[0], %param_conv1.weight)
        # AID : 0_Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0

:func:`kernel_execution_order` reads those names in index order (pure text parsing, line
by line, linear regexes); :func:`apply_execution_order` puts a graph's kernels in that order.
"""

import re
from typing import Dict, Iterable, List

from ascend_lab.model.graph import Graph

_ENTRY = re.compile(r"%\d+ = (\S+?)\(")  # an actor's line: `%2 = kernel_graph0:Conv2D-op0(`
_AID = re.compile(r"[ \t]*# AID : (\d{1,19})_(\S+)[ \t]*$")


def kernel_execution_order(texts: Iterable[str]) -> List[str]:
    """Kernel full names from final actor-set dumps, in the order the runtime runs them.

    Only kernel actors count (``kernel_graph<N>:<op>`` entries): fusion and data actors
    are numbered by counters of their own.
    """
    found = []
    for text in texts:
        in_kernel = False
        for line in text.splitlines():
            if line.startswith("%"):
                entry = _ENTRY.match(line)
                actor = entry.group(1) if entry else ""
                in_kernel = actor.startswith("kernel_graph") and ":" in actor
                continue
            if in_kernel:
                aid = _AID.match(line)
                if aid:
                    found.append((int(aid.group(1)), aid.group(2)))
                    in_kernel = False
    found.sort()
    return [name for _, name in found]


def apply_execution_order(graph: Graph, order: List[str]) -> bool:
    """Reorder ``graph``'s kernels (in place, within the places kernels hold in its node
    list) to ``order``, and number their ``step`` from 0.

    Applied only when ``order`` names every kernel exactly once (by full name); returns
    whether it was. Other nodes keep their places.
    """
    position: Dict[str, int] = {}
    for rank, name in enumerate(order):
        if name in position:
            position[name] = -1  # listed twice: ambiguous
        else:
            position[name] = rank
    slots = [i for i, node in enumerate(graph.nodes) if node.is_kernel]
    kernels = [graph.nodes[i] for i in slots]
    ranks = [position.get(node.name or "", -1) for node in kernels]
    if not kernels or min(ranks) < 0 or len(set(ranks)) != len(ranks):
        return False
    ordered = [node for _, node in sorted(zip(ranks, kernels), key=lambda pair: pair[0])]
    for step, (slot, node) in enumerate(zip(slots, ordered)):
        graph.nodes[slot] = node
        node.step = step
    return True
