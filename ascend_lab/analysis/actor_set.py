"""Kernel output sizes from MindSpore's actor-set dump (a cross-check for the planner).

``actor_set/0_actor_set_pipeline_kernel_graph_<N>.ir`` lists, for every kernel actor, the
byte size of each output (and workspace) the runtime allocates::

    actor_name:0_Default/conv-Conv2d/Conv2D-op0	actor_id:3
        kernel_name:Default/conv-Conv2d/Conv2D-op0	stream id:0	...	outputs_num:1	...
            output_index:0	ptr:0	size:8192	stream id:0	...	somas_offset:0	...
            workspace_index:0	ptr:0	size:32	...

:func:`parse_actor_set_sizes` returns the kernels in order with their output sizes, keyed by
the full name with scope (``Node.name`` of the kernel graph). Pure text parsing, line by
line with linear regular expressions. An index read from the file is checked against what
the file can hold (each output needs a line of its own) before a list is grown to it;
input that cannot be a dump raises :class:`~ascend_lab.parsers.errors.GraphParseError`.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ascend_lab.analysis.lifetimes import tensor_nbytes
from ascend_lab.model.graph import Graph
from ascend_lab.parsers.errors import GraphParseError

_KERNEL = re.compile(r"^\s*kernel_name:([^\t\n]+)")
_OUTPUT = re.compile(r"^\s*output_index:(\d+)\t.*?\bsize:(\d+)")
_WORKSPACE = re.compile(r"^\s*workspace_index:(\d+)\t.*?\bsize:(\d+)")
_MAX_DIGITS = 19  # no index or byte size has more (and int() of a million digits is slow)
_SKIPPED = re.compile(r"is_launch_skipped:(\d)")


@dataclass
class ActorKernel:
    """One kernel actor: its name, output sizes in bytes, workspace sizes."""

    name: str
    outputs: List[int] = field(default_factory=list)
    workspaces: List[int] = field(default_factory=list)
    launch_skipped: bool = False


def parse_actor_set_sizes(text: str, path: Optional[str] = None) -> List[ActorKernel]:
    """Kernel actors of an actor-set dump, in the order listed, with their output sizes.

    A kernel listed twice (``[Kernel actors]`` and ``[No input kernel actors]``) is kept
    once. The listing order is the runtime's dataflow order, not the kernel graph's.
    ``path`` only names the file in errors.
    """
    lines = text.splitlines()
    try:
        return _parse_lines(lines, path)
    except MemoryError:
        raise GraphParseError("actor-set dump too large to parse (MemoryError)", path) from None


def _parse_lines(lines: List[str], path: Optional[str]) -> List[ActorKernel]:
    kernels: List[ActorKernel] = []
    seen = set()
    current: Optional[ActorKernel] = None
    for lineno, line in enumerate(lines, 1):
        match = _KERNEL.match(line)
        if match:
            name = match.group(1).strip()
            if name in seen:
                current = None
                continue
            seen.add(name)
            current = ActorKernel(name)
            skipped = _SKIPPED.search(line)
            current.launch_skipped = bool(skipped and skipped.group(1) == "1")
            kernels.append(current)
            continue
        if current is None:
            continue
        match = _OUTPUT.match(line) or _WORKSPACE.match(line)
        if match:
            if max(len(match.group(1)), len(match.group(2))) > _MAX_DIGITS:
                raise GraphParseError(
                    f"number too long in {line.strip()[:60]!r}", path, line=lineno
                )
            index = int(match.group(1))
            if index >= len(lines):
                raise GraphParseError(
                    f"index {index} in {line.strip()[:60]!r} is more than the dump's "
                    f"{len(lines)} lines can list (one line per output)",
                    path,
                    line=lineno,
                )
            values = current.outputs if match.re is _OUTPUT else current.workspaces
            _put(values, index, int(match.group(2)))
            continue
        if line.strip().startswith("actor_name:"):
            current = None
    return kernels


def output_sizes_by_name(text: str) -> Dict[str, List[int]]:
    """``{kernel full name: [output bytes, ...]}`` from an actor-set dump."""
    return {k.name: k.outputs for k in parse_actor_set_sizes(text)}


def _put(values: List[int], index: int, size: int) -> None:
    while len(values) <= index:
        values.append(0)
    values[index] = size


def size_mismatches(graph: Graph, text: str) -> List[str]:
    """Kernels whose output byte sizes in ``graph`` differ from the actor-set dump ``text``.

    Compares every kernel of the graph (by full name with scope) with its actor; outputs of
    unknown size in the graph (dynamic shapes) are skipped, since the runtime only knows
    them when it runs. Returns readable lines, ``[]`` when everything matches.
    """
    actors = output_sizes_by_name(text)
    problems: List[str] = []
    kernel_names = {node.name or node.id for node in graph.kernels}
    for name in actors:
        if name not in kernel_names:
            problems.append(f"{name}: kernel actor not in the graph")
    for node in graph.kernels:
        name = node.name or node.id
        if name not in actors:
            problems.append(f"{name}: no kernel actor with this name")
            continue
        ours = [tensor_nbytes(t) for t in node.outputs]
        theirs = actors[name]
        if len(ours) != len(theirs):
            problems.append(f"{name}: {len(ours)} outputs in the graph, {len(theirs)} in actors")
            continue
        for index, (mine, real) in enumerate(zip(ours, theirs)):
            if mine is not None and mine != real:
                problems.append(f"{name} output {index}: {mine} bytes planned, {real} in actors")
    return problems
