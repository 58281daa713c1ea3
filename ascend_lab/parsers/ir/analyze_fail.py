"""Where a graph compile failed, from a parsed ``analyze_fail.ir`` / ``analyze_fail.dat``.

MindSpore writes the graphs of the evaluation stack when type or shape inference fails, and
marks the node each frame was evaluating with a ``#------------------------> N`` line; the
last (highest) N is the node where inference stopped (the docs: "search the last
------------------------>"). The readers (:mod:`.ir_text`, :mod:`.ir_dat`) keep N on the
node (:data:`~.ir_text.MARK_ATTR`) and the node's code line (``attrs["code"]``). This module
turns that into a :class:`FailurePoint` (the node, its op, its source line, and the deepest
frame in the user's own code, since the last frame is often inside MindSpore's own
``ops/`` functions), and into the graph to draw: the graph holding that node.

2.x files also begin with the error itself (``- Caught exception:`` ... up to the next
``----`` rule); :func:`caught_exception` reads it from the text. Pure: text and graphs in.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ascend_lab.model.graph import Graph, Node
from ascend_lab.parsers.ir.ir_text import MARK_ATTR

__all__ = ["FailurePoint", "Frame", "caught_exception", "failing_graph", "failure_point"]

# A source line in one of these folders is MindSpore's own code, not the user's.
_FRAMEWORK_PARTS = (
    "site-packages/mindspore/",
    "dist-packages/mindspore/",
    "/mindspore/ops/",
    "/mindspore/nn/",
    "/mindspore/common/",
    "/mindspore/_extends/",
    "/mindspore/train/",
    "/mindspore/numpy/",
    "/mindspore/parallel/",
    "/mindspore/mint/",
    "/mindspore/_checkparam",
)
_CAUGHT = "- Caught exception:"
_MAX_MESSAGE_LINES = 40


def is_framework_source(source: str) -> bool:
    """Whether ``path:line`` is inside MindSpore's own Python package."""
    path = source.replace("\\", "/")
    return any(part in path for part in _FRAMEWORK_PARTS)


@dataclass
class Frame:
    """One marked node: a frame of the evaluation stack."""

    mark: int
    graph: str
    node_id: str
    op: str
    source: Optional[str]  # "file:line" of the node's own code, if printed
    code: str  # that line's code, as MindSpore printed it

    def to_dict(self) -> Dict[str, object]:
        return {
            "mark": self.mark,
            "graph": self.graph,
            "node": self.node_id,
            "op": self.op,
            "source": self.source,
            "code": self.code,
        }


@dataclass
class FailurePoint:
    """Where inference stopped (``stop``, the last mark) and the deepest frame in the
    user's own code (``user``; the same frame when the stop is in user code)."""

    stop: Frame
    user: Optional[Frame]
    frames: List[Frame] = field(default_factory=list)  # by mark, outermost first

    def to_dict(self) -> Dict[str, object]:
        return {
            "stop": self.stop.to_dict(),
            "user": self.user.to_dict() if self.user else None,
            "frames": [f.to_dict() for f in self.frames],
        }


def _frame(graph: Graph, node: Node) -> Frame:
    mark = node.attrs.get(MARK_ATTR, "")
    callee = f" @{node.subgraph}" if node.kind == "call" and node.subgraph else ""
    return Frame(
        mark=int(mark) if mark.isdigit() else -1,
        graph=graph.name,
        node_id=node.id,
        op=node.op + callee,
        source=node.source[0] if node.source else None,
        code=node.attrs.get("code", ""),
    )


def failure_point(graph: Graph) -> Optional[FailurePoint]:
    """The failure point of a parsed analyze_fail file; None when no node is marked."""
    frames: List[Frame] = []
    for g in [graph] + list(graph.subgraphs.values()):
        for node in g.nodes:
            if MARK_ATTR in node.attrs:
                frames.append(_frame(g, node))
    if not frames:
        return None
    # by mark; a mark printed twice (a graph printed again) keeps file order
    frames.sort(key=lambda f: f.mark)
    stop = frames[-1]
    user = next(
        (f for f in reversed(frames) if f.source and not is_framework_source(f.source)), None
    )
    return FailurePoint(stop=stop, user=user, frames=frames)


def failing_graph(graph: Graph, point: FailurePoint) -> Graph:
    """The graph to draw: the one holding the stop node, with every other graph of the
    file as its subgraphs (``graph`` itself when the stop is in it). Nodes are shared."""
    if point.stop.graph == graph.name or point.stop.graph not in graph.subgraphs:
        return graph
    holder = graph.subgraphs[point.stop.graph]
    entry = Graph(name=graph.name, nodes=graph.nodes, file=graph.file, attrs=dict(graph.attrs))
    subgraphs = {graph.name: entry}
    subgraphs.update((k, g) for k, g in graph.subgraphs.items() if k != holder.name)
    attrs = dict(graph.attrs)
    attrs.update(holder.attrs)
    return Graph(
        name=holder.name, nodes=holder.nodes, file=graph.file, attrs=attrs, subgraphs=subgraphs
    )


def caught_exception(text: str) -> Optional[str]:
    """The error MindSpore 2.x prints at the top of analyze_fail.ir (the lines between
    ``- Caught exception:`` and the next ``----`` rule), at most 40 lines; else None."""
    at = text.find(_CAUGHT)
    if at < 0:
        return None
    lines: List[str] = []
    rule_seen = False
    for line in text[at + len(_CAUGHT) : at + 200_000].split("\n")[1:]:
        if line.startswith("----"):
            if not rule_seen and not lines:  # the rule under the heading
                rule_seen = True
                continue
            break
        if line.strip() or lines:
            lines.append(line.rstrip())
        if len(lines) >= _MAX_MESSAGE_LINES:
            break
    message = "\n".join(lines).strip()
    return message or None
