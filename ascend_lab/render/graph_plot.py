"""Draw a small Graph with matplotlib: layered left to right, one box per node.

For static output (papers, CI logs, nbconvert); the interactive viewer is the TypeScript
one. networkx and matplotlib are imported when called.
"""

from typing import Any, Optional, Tuple

from ascend_lab.model.graph import Graph, Node

_KIND_COLORS = {
    "op": "#cfe2ff",
    "call": "#ffe5b4",
    "parameter": "#d1e7dd",
    "input": "#e2e3e5",
    "constant": "#f8f9fa",
    "output": "#f8d7da",
}


def _label(node: Node) -> str:
    text = node.op if node.kind not in ("parameter", "input") else (node.name or node.id)
    if node.outputs and node.outputs[0].shape is not None:
        text += "\n" + "x".join(str(d) for d in node.outputs[0].shape)
        if len(node.outputs) > 1:
            text += f" (+{len(node.outputs) - 1})"
    return text


def plot_graph(
    graph: Graph,
    ax: Optional[Any] = None,
    hide_bookkeeping: bool = True,
    max_nodes: int = 200,
) -> Tuple[Any, Any]:
    """Draw ``graph`` and return ``(figure, axes)``.

    Layers are networkx topological generations (``multipartite_layout``); labels show the
    op and the first output's shape. ``hide_bookkeeping`` drops bookkeeping and constant
    nodes (bridging their data edges). Graphs with more than ``max_nodes`` visible nodes are
    refused with a ValueError that says how many there are: use the interactive viewer.
    """
    import matplotlib.pyplot as plt
    import networkx as nx

    from ascend_lab.model.nx import to_networkx

    g = to_networkx(graph, include_bookkeeping=not hide_bookkeeping)
    if hide_bookkeeping:
        g.remove_nodes_from([n for n, d in g.nodes(data=True) if d["kind"] == "constant"])
    if g.number_of_nodes() > max_nodes:
        raise ValueError(
            f"graph {graph.name!r} has {g.number_of_nodes()} nodes to draw (max_nodes="
            f"{max_nodes}); pass a larger max_nodes or use the interactive viewer"
        )
    dag = g
    if not nx.is_directed_acyclic_graph(g):
        # Cycles only come from malformed input: layer an acyclic copy, draw every edge.
        dag = nx.DiGraph(g)
        while not nx.is_directed_acyclic_graph(dag):
            src, dst = nx.find_cycle(dag)[0][:2]
            dag.remove_edge(src, dst)
    for layer, layer_nodes in enumerate(nx.topological_generations(dag)):
        for n in layer_nodes:
            g.nodes[n]["layer"] = layer
    pos = nx.multipartite_layout(g, subset_key="layer", align="vertical") if len(g) else {}
    width = 2 + 1.6 * (1 + max((d["layer"] for _, d in g.nodes(data=True)), default=0))
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(width, 30), 6))
    else:
        fig = ax.figure
    nodes = {n.id: n for n in graph.nodes}
    colors = [_KIND_COLORS.get(d["kind"], "#ffffff") for _, d in g.nodes(data=True)]
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=10, edge_color="#888888")
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=900, edgecolors="#555555")
    nx.draw_networkx_labels(
        g, pos, labels={n: _label(nodes[n]) for n in g.nodes}, ax=ax, font_size=7
    )
    ax.set_title(graph.name, fontsize=9)
    ax.set_axis_off()
    return fig, ax
