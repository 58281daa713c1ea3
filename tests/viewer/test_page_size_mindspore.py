"""The standalone page's size as concat-heavy blocks grow (issue #27): a DenseNet-like net
(each dense layer concatenates all features before it) with 2, 4 and 8 dense blocks. Each
added node costs the page about the same, and less than DenseNet-121's 5 MB target spread
over its 3,061 kernel-graph nodes. ``benchmarks/bench_page_size.py`` prints the numbers for
DenseNet-121 itself."""

import os
import re

import pytest

pytestmark = pytest.mark.mindspore

BUDGET_PER_NODE = 5_000_000 / 3061  # DenseNet-121: <= 5 MB for its 3,061 nodes


def page(blocks, tmp_path):
    import ascend_lab
    from benchmarks.support.densenet_nets import DenseNet, densenet_input

    net = DenseNet((4,) * blocks, growth=8, init=16, classes=10, pool=False)
    net.set_train(False)
    trace = ascend_lab.trace(net, densenet_input(32), run=False)
    path = trace.to_html(str(tmp_path / f"densenet_{blocks}.html"))
    return os.path.getsize(path), len(trace.graph.nodes), open(path, encoding="utf-8").read()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    return {b: page(b, root) for b in (2, 4, 8)}


def test_each_added_node_costs_the_page_about_the_same_and_within_budget(pages):
    (s2, n2, _), (s4, n4, _), (s8, n8, _) = (pages[b] for b in (2, 4, 8))
    assert n2 < n4 < n8
    first, second = (s4 - s2) / (n4 - n2), (s8 - s4) / (n8 - n4)
    assert second <= 1.15 * first, (first, second)  # no growth faster than the graph
    assert second <= BUDGET_PER_NODE, second


def test_pass_diffs_travel_packed_with_the_snapshots(pages):
    # the page's plain JSON keeps only the main views' diffs: packed passes' are packed
    import base64
    import gzip
    import json

    text = pages[8][2]
    payload = re.search(r'id="ascend-lab-payload">(.*?)</script>', text, re.S).group(1)
    data = json.loads(payload)
    packed = json.loads(re.search(r'id="ascend-lab-passes">(.*?)</script>', text, re.S).group(1))
    diffs = json.loads(gzip.decompress(base64.b64decode(packed["diffs"])))
    packed_passes = [p for p in data["passes"] if str(p["index"]) in packed["passes"]]
    assert packed_passes and not any("removed" in p for p in packed_passes)
    assert all(str(p["index"]) in diffs for p in packed_passes if p["changed"])
    assert any(d.get("removed") for d in diffs.values())
