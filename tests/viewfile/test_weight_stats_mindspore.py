"""weight_stats on .mindir files MindSpore itself exports, against the net's own parameters:
one file with float32/float16/int32/int8 weights, and the split form MindSpore writes for
models over 1 GB (``<name>_graph.mindir`` + ``<name>_variables/data_N``), made here from a
small net by lowering MindSpore's size thresholds."""

import numpy as np
import pytest

from ascend_lab.viewfile.sources import payload_for_path
from ascend_lab.viewfile.weight_stats import weight_names, weight_stats
from tests.viewfile.test_weight_stats import assert_matches, reference

pytestmark = pytest.mark.mindspore


def small_net():
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(0)
            self.dense = nn.Dense(16, 8)
            half = rng.normal(0, 1, 8).astype(np.float16)
            half[2] = 0
            self.scale16 = Parameter(Tensor(half), name="scale16")
            self.offset32 = Parameter(
                Tensor(rng.integers(-50, 50, 8).astype(np.int32)),
                name="offset32",
                requires_grad=False,
            )
            self.bias8 = Parameter(
                Tensor(np.array([-128, 127, 0, 5, -3, 0, 9, 1], np.int8)),
                name="bias8",
                requires_grad=False,
            )

        def construct(self, x):
            y = self.dense(x) * ops.cast(self.scale16, ms.float32)
            return y + ops.cast(self.offset32, ms.float32) + ops.cast(self.bias8, ms.float32)

    net = Net()
    return net, Tensor(np.ones((2, 16), np.float32))


def check_against_net(path, net):
    params = {name: p.asnumpy() for name, p in net.parameters_dict().items()}
    assert sorted(weight_names(str(path))) == sorted(params)
    for name, values in params.items():
        stats = weight_stats(str(path), name, chunk_elements=5)
        assert stats["shape"] == list(values.shape)
        assert_matches(stats, reference(values))


def test_exported_weights_match_the_net(tmp_path):
    import mindspore as ms

    net, x = small_net()
    ms.export(net, x, file_name=str(tmp_path / "small"), file_format="MINDIR")
    path = tmp_path / "small.mindir"
    check_against_net(path, net)
    dtypes = {n: weight_stats(str(path), n)["dtype"] for n in weight_names(str(path))}
    assert dtypes == {
        "dense.weight": "Float32",
        "dense.bias": "Float32",
        "scale16": "Float16",
        "offset32": "Int32",
        "bias8": "Int8",
    }


def test_split_export_reads_each_data_file(tmp_path, monkeypatch):
    import mindspore as ms
    from mindspore.train import serialization

    # MindSpore splits above 1 GB, and starts a new data_N file every 1 GB: lower both
    # (in KB; 0.2 KB puts this net's five weights in two files)
    monkeypatch.setattr(serialization, "TOTAL_SAVE", 0)
    monkeypatch.setattr(serialization, "PARAMETER_SPLIT_SIZE", 0.2)
    net, x = small_net()
    ms.export(net, x, file_name=str(tmp_path / "small"), file_format="MINDIR")
    data_files = sorted(p.name for p in (tmp_path / "small_variables").iterdir())
    assert len(data_files) > 1, data_files  # the weights really are spread over files
    assert not (tmp_path / "small.mindir").exists()
    check_against_net(tmp_path / "small_graph.mindir", net)
    # and the viewer opens the graph file: weights with shape and dtype
    payload = payload_for_path(str(tmp_path / "small_graph.mindir"))
    weights = {
        n["id"]: n["outputs"][0]
        for n in payload["graphs"][payload["views"]["main"]]["nodes"]
        if n["kind"] == "parameter"
    }
    assert weights["scale16"] == {
        "dtype": "Float16",
        "shape": [8],
        "device_dtype": None,
        "format": None,
    }
    assert weights["dense.weight"]["shape"] == [8, 16] and len(weights) == 5
