"""Dumps without a kernel graph (a net that returns its input compiles to none) give a
NoKernelGraphError that says why, not a bare ValueError about a graph_build file."""

import shutil
from pathlib import Path

import pytest

from ascend_lab.errors.trace import NoKernelGraphError
from ascend_lab.results.trace import Trace

FRONTEND = Path(__file__).parent.parent / "fixtures" / "ir" / "param_names"


def test_a_dump_folder_of_frontend_passes_only_says_there_is_no_kernel_graph(tmp_path):
    shutil.copy(FRONTEND / "01_type_inference_0001.ir", tmp_path)
    with pytest.raises(NoKernelGraphError) as err:
        Trace.from_dump_folder(str(tmp_path))
    text = str(err.value)
    assert f"MindSpore built no kernel graph in {tmp_path}" in text
    assert "returns its inputs, or only constants" in text
    assert isinstance(err.value, ValueError)  # what it raised before
