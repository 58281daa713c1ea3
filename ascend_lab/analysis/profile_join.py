"""Put each measured kernel on a node of a traced graph, and say what could not be joined.

First by full scope name (the profiler's ``Name`` and the node's ``Fullname with scope``
are the same string when both come from the same compile). A second compile of the same
net in one process numbers its ops anew (``Conv2D-op0`` in the trace, ``Conv2D-op1`` in
the profile), so what is left is matched by kernel order: the k-th unmatched row of a scope
and op type (``Default/conv1-Conv2d/Conv2D``, by first launch) goes to the k-th unmatched
graph kernel with that scope and type (in execution order), then the same by op type
alone. Nothing is dropped: rows left
over are listed in ``Profile.unjoined_rows``, kernels of the graph without a row in
``Profile.unmeasured_nodes``, each with a reason. Pure: works on the model objects.
"""

from typing import Any, Callable, Dict, List

from ascend_lab.model.profile import KernelStats, Profile, Unjoined
from ascend_lab.parsers.profiler.profiler_cpu_files import op_type_of

# Kernels MindSpore marks as nop nodes and never launches: their output is the input's
# memory (checked on CPU with 2.10: LeNet's Flatten has no profiler row).
NOP_OPS = frozenset({"Reshape", "Flatten", "ExpandDims", "Squeeze", "FlattenGrad"})


def _unmeasured_reason(op: str) -> str:
    if op in NOP_OPS:
        return (
            f"not launched: MindSpore runs {op} as a nop node (its output is the input's "
            "memory), so the profiler has no row for it"
        )
    return "the profiler has no row with this kernel's name, and none of its type was left"


def _scoped_type(name: str) -> str:
    """``Default/fc1-Dense/MatMul-op3`` -> ``Default/fc1-Dense/MatMul`` (no op number)."""
    scope, _, _last = name.rpartition("/")
    return f"{scope}/{op_type_of(name)}"


def _match_in_order(
    rows: List[KernelStats],
    nodes: List[Any],
    taken: set,
    node_key: Callable[[Any], str],
    row_key: Callable[[Any], str],
) -> List[KernelStats]:
    """Pair ``rows`` (by first launch) with free ``nodes`` of the same key, in order."""
    queues: Dict[str, List[Any]] = {}
    for node in nodes:
        if node.id not in taken:
            queues.setdefault(node_key(node), []).append(node)
    left: List[KernelStats] = []
    for k in rows:
        queue = queues.get(row_key(k))
        if queue:
            node = queue.pop(0)
            k.node_id, k.joined_by = node.id, "order"
            taken.add(node.id)
        else:
            left.append(k)
    return left


def join_to_graph(profile: Profile, graph: Any) -> None:
    """Set ``node_id``/``joined_by`` on ``profile.kernels`` from ``graph`` (an ascend_lab Graph)."""
    nodes = list(graph.kernels)
    by_name: Dict[str, Any] = {}
    for node in nodes:
        if node.name and node.name not in by_name:
            by_name[node.name] = node
    taken = set()
    left: List[KernelStats] = []
    for k in profile.kernels:
        k.node_id, k.joined_by = None, None
        node = by_name.get(k.name)
        if node is not None and node.id not in taken:
            k.node_id, k.joined_by = node.id, "name"
            taken.add(node.id)
        else:
            left.append(k)
    left.sort(key=lambda r: (r.first_start_us, r.name))
    left = _match_in_order(
        left, nodes, taken, lambda n: _scoped_type(n.name or ""), lambda k: _scoped_type(k.name)
    )
    left = _match_in_order(left, nodes, taken, lambda n: n.op, lambda k: k.op_type)
    unjoined: List[Unjoined] = []
    for k in left:
        unjoined.append(
            Unjoined(
                name=k.name,
                op_type=k.op_type,
                total_us=k.total_us,
                reason=(
                    "no kernel of the traced graph has this name, and none of type "
                    f"{k.op_type} was left to match in order"
                ),
            )
        )
    profile.unjoined_rows = unjoined
    profile.unmeasured_nodes = [
        Unjoined(name=n.name or n.id, op_type=n.op, node_id=n.id, reason=_unmeasured_reason(n.op))
        for n in nodes
        if n.id not in taken
    ]
