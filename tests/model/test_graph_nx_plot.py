"""Graph.to_networkx() and Graph.plot() on recorded dumps."""

import matplotlib
import networkx
import pytest

from ascend_lab.model.nx import to_networkx
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from tests.support.ir_fixtures import fixture
from tests.support.python import run_python

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def fused():
    return parse_ir_file(fixture("lenet_fusion/graph_build_*.ir"))


def test_to_networkx_keeps_every_node_and_edge(fused):
    g = fused.to_networkx()
    assert g.number_of_nodes() == len(fused.nodes)
    assert g.number_of_edges() == len({(s, d) for s, d, _ in fused.edges()})
    conv = g.nodes["%1"]
    assert (conv["op"], conv["shape"], conv["dtype"]) == ("Conv2D", (1, 6, 28, 28), "Float32")
    assert conv["step"] == 0 and conv["scope"] == "Default/conv1-Conv2d"
    assert g.edges["%para9_x", "%1"]["slot"] == 0
    assert g.graph["name"] == "kernel_graph0"


def test_to_networkx_without_bookkeeping_bridges_data_edges(fused):
    g = to_networkx(fused, include_bookkeeping=False)
    assert not any(d["bookkeeping"] for _, d in g.nodes(data=True))
    # conv1.weight reached Conv2D through a Load; the edge is bridged.
    assert g.has_edge("%para5_conv1.weight", "%1")
    assert g.edges["%para5_conv1.weight", "%1"]["slot"] == 1
    # The UMonad fed only the Load's state input: not bridged to the Conv2D.
    assert not g.has_edge("%0#1", "%1")
    kernels = [n for n, d in g.nodes(data=True) if d["step"] is not None]
    chain = [g.nodes[n]["op"] for n in sorted(kernels, key=lambda n: g.nodes[n]["step"])]
    assert chain[:3] == ["Conv2D", "Fused_ReLU", "MaxPool"]
    assert g.has_edge("%1", "%2") and g.has_edge("%2", "%3")


def test_plot_returns_figure_with_labels(fused):
    fig, ax = fused.plot()
    labels = {t.get_text() for t in ax.texts}
    assert "Conv2D\n1x6x28x28" in labels
    assert "Fused_BiasAdd_ReLU_fusion\n1x120" in labels
    assert "conv1.weight\n6x1x5x5" in labels
    assert not any(label.startswith(("Load", "Constant")) for label in labels)
    assert ax.get_title() == "kernel_graph0"
    fig.canvas.draw()
    matplotlib.pyplot.close(fig)


def test_plot_onto_given_axes_and_refuses_big_graphs(fused):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    fig2, ax2 = fused.plot(ax=ax, hide_bookkeeping=False)
    assert ax2 is ax and fig2 is fig
    assert len(ax.texts) == len(fused.nodes)
    with pytest.raises(ValueError, match="max_nodes"):
        fused.plot(max_nodes=5)
    plt.close(fig)


def test_graph_modules_import_nothing_heavy():
    """Parsers and drawing helpers load networkx/matplotlib/protobuf only when called."""

    code = (
        "import sys, ascend_lab.parsers.ir.ir_text, ascend_lab.parsers.mindir.mindir, "
        "ascend_lab.model.nx, ascend_lab.render.graph_plot, ascend_lab.parsers.errors\n"
        "heavy = ('mindspore', 'networkx', 'matplotlib', 'google.protobuf')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    out = run_python(code)
    assert out.stdout.strip() == "[]"


def test_mindir_graph_converts_and_plots():
    from ascend_lab.parsers.mindir.mindir import parse_mindir_file

    g = parse_mindir_file(fixture("conv/conv.mindir"))
    nxg = g.to_networkx(include_bookkeeping=False)
    assert nxg.has_edge("x", "output:3")  # x -> Conv2D
    assert nxg.has_edge("conv.weight", "output:3")  # through the Load
    order = [nxg.nodes[n]["op"] for n in networkx.topological_sort(nxg)]
    assert order.index("Conv2D") < order.index("BiasAdd") < order.index("ReLU")
    fig, ax = g.plot()
    assert "Conv2D\n1x8x16x16" in {t.get_text() for t in ax.texts}
    matplotlib.pyplot.close(fig)


def test_plot_of_an_empty_graph():
    from ascend_lab.model.graph import Graph

    fig, ax = Graph(name="empty").plot()
    assert ax.get_title() == "empty" and not ax.texts
    matplotlib.pyplot.close(fig)


def test_long_bookkeeping_chains_are_bridged_without_recursion_limits():
    from ascend_lab.model.graph import Graph, Node

    nodes = [Node(id="a", op="Conv2D"), Node(id="u", op="UpdateState")]
    prev = "a"
    for i in range(5000):
        nodes.append(Node(id=f"d{i}", op="Depend", inputs=[prev, "u"]))
        prev = f"d{i}"
    nodes.append(Node(id="r", op="ReLU", inputs=[prev]))
    g = to_networkx(Graph(name="chain", nodes=nodes), include_bookkeeping=False)
    assert sorted(g.nodes) == ["a", "r"] and list(g.edges) == [("a", "r")]
