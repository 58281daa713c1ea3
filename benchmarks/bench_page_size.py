"""Size of the standalone page of DenseNet-121 (issue #27: target <= 5 MB) and of small
DenseNet-like nets with 2, 4 and 8 dense blocks, with what takes the room.

Prints, for each net: kernel-graph nodes, page bytes, bytes per node, and the page's parts
(payload JSON: main graph, passes list, memory; packed pass bundles; packed diffs).

Usage: .venv/bin/python benchmarks/bench_page_size.py [--small-only]
Needs MindSpore (CPU) and the built viewer. DenseNet-121 traces in ~3 min on 2 cores.
"""

import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def parts(text):
    def script(element_id):
        m = re.search(rf'id="{element_id}">(.*?)</script>', text, re.S)
        return m.group(1) if m else ""

    payload, packed = script("ascend-lab-payload"), script("ascend-lab-passes")
    data = json.loads(payload)
    size = lambda v: len(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode())  # noqa: E731
    doc = json.loads(packed) if packed else {}
    return {
        "payload": len(payload.encode()),
        "main graphs": size(data["graphs"]),
        "passes list": size(data["passes"]),
        "memory": size(data.get("memory")),
        "packed bundles": sum(len(b) for b in doc.get("bundles", [])),
        "packed diffs": len(doc.get("diffs", "")),
    }


def measure(name, net, x, root):
    import ascend_lab

    net.set_train(False)
    trace = ascend_lab.trace(net, x, run=False)
    path = trace.to_html(os.path.join(root, name + ".html"))
    text = open(path, encoding="utf-8").read()
    nodes = len(trace.graph.nodes)
    total = os.path.getsize(path)
    print(
        f"{name}: {nodes} nodes, page {total:,} B ({total / 1e6:.2f} MB),",
        f"{total / nodes:.0f} B/node",
    )
    for k, v in parts(text).items():
        print(f"    {k:15s} {v:>11,} B")
    return nodes, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small-only", action="store_true")
    args = ap.parse_args()
    from benchmarks.support.densenet_nets import DenseNet, densenet_input

    with tempfile.TemporaryDirectory() as root:
        small = {}
        for blocks in (2, 4, 8):
            net = DenseNet((4,) * blocks, growth=8, init=16, classes=10, pool=False)
            small[blocks] = measure(f"densenet-like {blocks} blocks", net, densenet_input(32), root)
        (n2, s2), (n4, s4), (n8, s8) = small[2], small[4], small[8]
        print(
            "bytes per added node: 2->4 blocks",
            f"{(s4 - s2) / (n4 - n2):.0f}, 4->8 {(s8 - s4) / (n8 - n4):.0f}",
        )
        if not args.small_only:
            measure("DenseNet-121", DenseNet(), densenet_input(224), root)


if __name__ == "__main__":
    main()
