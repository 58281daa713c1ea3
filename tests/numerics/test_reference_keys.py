"""Reference keys as scripts/torch_reference_hooks.py writes them name the Cells they should
(pure: no MindSpore, no PyTorch)."""

import importlib.util
import os

import numpy as np
import pytest

from ascend_lab.errors.numerics import NumericsReferenceError
from ascend_lab.model.numeric_records import OpRecord, normalize_path, path_from_key
from ascend_lab.model.tensor_stats import TensorStats
from ascend_lab.numerics.reference import reference_side

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _script():
    spec = importlib.util.spec_from_file_location(
        "torch_reference_hooks", os.path.join(ROOT, "scripts", "torch_reference_hooks.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports neither torch nor numpy at load
    return module


@pytest.mark.parametrize(
    "args,key,expected",
    [
        (("layers.0.attn",), "layers.0.attn", ("layers.0.attn", 0)),
        (("",), "(net)", ("", 0)),
        (("act", 2), "act#2", ("act", 2)),
        (("attn", 0, 1, 2), "attn:1", ("attn", 0)),
    ],
)
def test_script_keys_round_trip(args, key, expected):
    assert _script().reference_key(*args) == key
    base = key.rpartition(":")[0] if ":" in key else key
    assert path_from_key(base) == expected


def test_scopes_and_amp_paths_name_the_same_cell():
    assert path_from_key("Default/blocks-CellList/1-Residual/mlp-SequentialCell") == (
        "blocks.1.mlp",
        0,
    )
    assert path_from_key("Default") == ("", 0)
    assert normalize_path("_backbone.blocks.0._backbone.norm") == "blocks.0.norm"


def _record(path, index, shapes):
    outs = [TensorStats(np.zeros(s, np.float32)) for s in shapes]
    return OpRecord(index, path, 0, "Dense", "Default/" + path, "", [], outs)


def test_reference_side_orders_by_the_net_and_reads_second_outputs():
    known = {r.key: r for r in [_record("fc", 0, [(2, 3)]), _record("attn", 1, [(2, 3), (2, 2)])]}
    side = reference_side({"attn:1": np.ones((2, 2)), "fc": np.ones((2, 3))}, known)
    assert [r.path for r in side.records] == ["fc", "attn"]
    assert side.records[1].outputs[0] is None and side.records[1].outputs[1].shape == (2, 2)


def test_reference_side_refuses_unknown_keys_naming_the_known_ones():
    known = {r.key: r for r in [_record("fc", 0, [(2, 3)])]}
    with pytest.raises(NumericsReferenceError, match="'fc2'.*The net's Cells are: fc"):
        reference_side({"fc2": np.ones((2, 3))}, known)


def test_importing_the_package_and_facade_imports_neither_mindspore_nor_numpy():
    import subprocess
    import sys

    code = (
        "import sys, ascend_lab, ascend_lab.numerics;"
        "print(callable(ascend_lab.compare_numerics),"
        " 'mindspore' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False"]
