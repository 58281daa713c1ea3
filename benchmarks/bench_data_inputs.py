"""What listing each node's data inputs (issue #25) costs in the payload and the HTML page.

Traces ResNet-50 (batch 1, fusion off, CPU) and a LeNet with fusion on, builds the payload
and the standalone page, then the same with ``data_inputs``/``data_inputs_listed`` taken
out (what a payload before the field looked like). Prints sizes and the difference, and how
many nodes carry the field. Compressed sizes too: the page embeds the payload gzipped.

Usage: .venv/bin/python benchmarks/bench_data_inputs.py [--net resnet50|lenet|both]
"""

import argparse
import gzip
import json
import os
import sys
import tempfile
from typing import Any, Dict, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import ascend_lab  # noqa: E402
from ascend_lab.render.standalone import render_html  # noqa: E402


def strip(payload: Dict[str, Any]) -> Tuple[Dict[str, Any], int]:
    """A deep copy of ``payload`` without the data-input fields, and how many nodes had one."""
    old = json.loads(json.dumps(payload))
    count = 0
    for graph in old["graphs"].values():
        graph.pop("data_inputs_listed", None)
        for node in graph["nodes"]:
            if node.pop("data_inputs", None) is not None:
                count += 1
    return old, count


def sizes(payload: Dict[str, Any]) -> Tuple[int, int, int]:
    text = json.dumps(payload, separators=(",", ":"))
    html = render_html(payload)
    return len(text), len(gzip.compress(text.encode(), 6)), len(html)


def net_and_input(name: str) -> Tuple[Any, Any, bool]:
    import mindspore as ms
    import numpy as np

    from ascend_lab.course.nets import LeNet5, ResNet50

    if name == "resnet50":
        net = ResNet50()
        net.set_train(False)
        return net, ms.Tensor(np.zeros((1, 3, 224, 224), np.float32)), False
    net = LeNet5()
    net.set_train(False)
    return net, ms.Tensor(np.zeros((1, 1, 32, 32), np.float32)), True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--net", default="resnet50", choices=["resnet50", "lenet", "both"])
    args = parser.parse_args()
    names = ["resnet50", "lenet"] if args.net == "both" else [args.net]
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # AKG's kernel cache goes here
        for name in names:
            net, x, fusion = net_and_input(name)
            tr = ascend_lab.trace(net, x, fusion=fusion, progress=False)
            payload = tr.to_payload()
            nodes = sum(len(g["nodes"]) for g in payload["graphs"].values())
            old, listed = strip(payload)
            new_json, new_gz, new_html = sizes(payload)
            old_json, old_gz, old_html = sizes(old)
            print(
                f"{name} (fusion {'on' if fusion else 'off'}): {len(payload['graphs'])} graphs, "
                f"{nodes} nodes, {listed} with data_inputs"
            )
            for label, new, old_size in (
                ("payload JSON", new_json, old_json),
                ("payload gzip", new_gz, old_gz),
                ("HTML page", new_html, old_html),
            ):
                grow = new - old_size
                print(
                    f"  {label:13s} {old_size:>10,d} -> {new:>10,d} bytes "
                    f"(+{grow:,d}, {100.0 * grow / old_size:+.2f}%)"
                )


if __name__ == "__main__":
    main()
