"""Synthetic ``ascend-lab.graph/1`` payloads for the viewer tests and benchmarks.

Built from the real graph model (``Graph``/``Node``/``TensorType``), validated against the
schema. ``course_payload`` mirrors a small Conv2d + BN + ReLU net before/after fusion;
``big_payload`` makes a graph with nested scopes of any size (10,000 nodes for the
benchmark), ``resnet_like_payload`` a ~500-kernel graph shaped like ResNet-50's.
"""

import json
import os
from typing import Any, Dict, List, Optional

from ascend_lab.model.graph import Graph, Node, TensorType

SCHEMA_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "ascend_lab",
    "payload",
    "graph.schema.json",
)
XSS = "<img src=x onerror=alert(1)>"


def _t(shape: List[int], dtype: str = "Float32") -> TensorType:
    return TensorType(dtype=dtype, shape=tuple(shape), device_dtype=dtype.lower(), format="NCHW")


def _node(
    node_id: str,
    op: str,
    inputs: List[str],
    scope: Optional[str],
    shape: List[int],
    kind: str = "op",
    step: Optional[int] = None,
) -> Node:
    return Node(
        id=node_id,
        op=op,
        kind=kind,
        name=f"{scope}/{op}-op{node_id}" if scope else None,
        scope=scope,
        inputs=inputs,
        outputs=[_t(shape)],
        attrs={"format": "NCHW"},
        source=["course/net.py:12"],
        step=step,
    )


def course_graphs() -> Dict[str, Graph]:
    x = [1, 3, 32, 32]
    y = [1, 8, 32, 32]
    before = Graph(
        "kernel_graph_before",
        [
            _node("x", "Parameter", [], None, x, kind="input"),
            _node("w", "Parameter", [], None, [8, 3, 3, 3], kind="parameter"),
            _node("1", "Conv2D", ["x", "w"], "Default/conv-Conv2d", y),
            _node("2", "BatchNorm", ["1"], "Default/bn-BatchNorm2d", y),
            _node("3", "TupleGetItem", ["2"], "Default/bn-BatchNorm2d", y),
            _node("4", "ReLU", ["3"], "Default/relu-ReLU", y),
            _node("5", XSS, ["4"], "Default", y),
            _node("6", "Return", ["5"], None, y),
        ],
    )
    after = Graph(
        "kernel_graph_after",
        [
            _node("x", "Parameter", [], None, x, kind="input"),
            _node("w", "Parameter", [], None, [8, 3, 3, 3], kind="parameter"),
            _node("1", "Conv2D", ["x", "w"], "Default/conv-Conv2d", y, step=0),
            _node("k1", "Fused_BatchNorm_ReLU_fusion", ["1"], "Default", y, kind="call", step=1),
            _node("5", XSS, ["k1"], "Default", y, step=2),
            _node("6", "Return", ["5"], None, y),
        ],
    )
    return {"before": before, "after": after}


def course_payload() -> Dict[str, Any]:
    graphs = course_graphs()
    size = 4 * 8 * 32 * 32
    return {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "Conv2d + BN + ReLU (synthetic)", "device": "CPU", "fusion": True},
        "graphs": {k: g.to_dict() for k, g in graphs.items()},
        "views": {"main": "after", "before": "before", "after": "after"},
        "passes": [
            {
                "index": 0,
                "name": "00_bootstrap",
                "stage": "frontend",
                "graph": "before",
                "changed": True,
                "added": ["1", "2", "4"],
                "removed": [],
                "modified": [],
            },
            {
                "index": 1,
                "name": "01_type_inference",
                "stage": "frontend",
                "graph": None,
                "changed": False,
                "added": [],
                "removed": [],
                "modified": [],
            },
            {
                "index": 2,
                "name": "0008_stage1_cluster_graph_kernel_cluster",
                "stage": "graph_kernel",
                "graph": "after",
                "changed": True,
                "added": ["k1"],
                "removed": ["Default/bn-BatchNorm2d/BatchNorm"],
                "modified": ["5"],
            },
            {
                "index": 3,
                "name": "hwopt_after_fusion",
                "stage": "backend",
                "graph": None,
                "changed": True,
                "added": [],
                "removed": [],
                "modified": ["1"],
            },
        ],
        "fusion": {
            "kernels": [
                {
                    "kernel": "k1",
                    "name": "Fused_BatchNorm_ReLU_fusion",
                    "originals": ["2", "4"],
                    "ops": ["BatchNorm", "ReLU"],
                }
            ],
            "kernel_count_before": 4,
            "kernel_count_after": 3,
        },
        "memory": {
            "graph": "after",
            "alignment": 512,
            "strategy": "greedy-by-size",
            "peak": 2 * size,
            "lower_bound": 2 * size,
            "no_reuse": 3 * size,
            "steps": 3,
            "live_bytes": [size, 2 * size, 2 * size],
            "tensors": [
                {
                    "id": "t1",
                    "node": "1",
                    "label": "Conv2D output",
                    "size": size,
                    "start": 0,
                    "end": 1,
                    "offset": 0,
                },
                {
                    "id": "t2",
                    "node": "k1",
                    "label": "fused output",
                    "size": size,
                    "start": 1,
                    "end": 2,
                    "offset": size,
                },
                {
                    "id": "t3",
                    "node": "5",
                    "label": XSS,
                    "size": size,
                    "start": 2,
                    "end": 2,
                    "offset": 0,
                },
            ],
        },
    }


def big_graph(total: int = 10000, stages: int = 10, blocks: int = 10) -> Graph:
    """``total`` nodes in scopes Default/layerS-SequentialCell/B-Bottleneck[/unitU-Conv2d]."""
    nodes = [_node("in", "Parameter", [], None, [32, 64, 56, 56], kind="input")]
    per_block = max(2, total // (stages * blocks))
    prev = "in"
    count = 0
    ops = ["Conv2D", "BatchNorm", "ReLU", "Add"]
    for s in range(stages):
        for b in range(blocks):
            scope = f"Default/layer{s}-SequentialCell/{b}-Bottleneck"
            for i in range(per_block):
                if len(nodes) >= total:
                    break
                node_id = f"n{count}"
                count += 1
                op = "MakeTuple" if i % 10 == 9 else ops[i % 4]
                unit = i // 4
                sub = f"{scope}/unit{unit}-Conv2d" if unit % 3 == 0 else scope
                nodes.append(_node(node_id, op, [prev], sub, [32, 64, 56, 56], step=count))
                prev = node_id
    return Graph(f"synthetic_{total}", nodes)


def big_payload(total: int = 10000) -> Dict[str, Any]:
    graph = big_graph(total)
    return {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": f"synthetic {total}-node graph"},
        "graphs": {"main": graph.to_dict()},
        "views": {"main": "main"},
    }


def resnet_like_payload(kernels: int = 500) -> Dict[str, Any]:
    """~``kernels`` nodes: 4 stages of [3, 4, 6, 3] bottlenecks with branches and adds."""
    nodes: List[Node] = [_node("x", "Parameter", [], None, [32, 3, 224, 224], kind="input")]
    prev = "x"
    count = 0

    def add(op: str, inputs: List[str], scope: str) -> str:
        nonlocal count
        count += 1
        node_id = f"%{count}"
        nodes.append(_node(node_id, op, inputs, scope, [32, 256, 56, 56], step=count))
        return node_id

    prev = add("Conv2D", [prev], "Default/conv1-Conv2d")
    prev = add("Fused_ReLU", [prev], "Default/relu-ReLU")
    prev = add("MaxPool", [prev], "Default/maxpool-MaxPool2d")
    for s, n_blocks in enumerate([3, 4, 6, 3]):
        for b in range(n_blocks):
            scope = f"Default/layer{s + 1}-SequentialCell/{b}-ResidualBlock"
            h = prev
            for c in range(3):
                h = add("Conv2D", [h], f"{scope}/conv{c + 1}-Conv2d")
                h = add("BatchNorm", [h], f"{scope}/bn{c + 1}-BatchNorm2d")
                h = add("TupleGetItem", [h], f"{scope}/bn{c + 1}-BatchNorm2d")
                if c < 2:
                    h = add("Fused_ReLU", [h], f"{scope}/relu-ReLU")
            short = prev
            if b == 0:
                short = add("Conv2D", [prev], f"{scope}/down_sample_layer-SequentialCell")
                short = add("BatchNorm", [short], f"{scope}/down_sample_layer-SequentialCell")
            prev = add("Fused_Add_ReLU_fusion", [h, short], scope)
    while count < kernels - 3:
        prev = add("Cast", [prev], "Default/tail-SequentialCell")
    prev = add("ReduceMean", [prev], "Default/head-GlobalAvgPool")
    prev = add("MatMul", [prev], "Default/end_point-Dense")
    add("BiasAdd", [prev], "Default/end_point-Dense")
    graph = Graph("resnet50_like_kernel_graph", nodes)
    return {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "ResNet-50-sized kernel graph (synthetic)"},
        "graphs": {"main": graph.to_dict()},
        "views": {"main": "main"},
    }


def validate(payload: Dict[str, Any]) -> None:
    """Validate against ``ascend_lab/payload/graph.schema.json`` (raises on failure)."""
    import jsonschema

    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator(schema).validate(payload)
