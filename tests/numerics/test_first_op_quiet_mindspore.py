"""The first comparison in a notebook kernel shows nothing but its own output. MindSpore
2.10 with NumPy 2: the first PyNative op of a process trips NumPy's "compiled using NumPy
1.x" check, and notebook 06's first comparison showed NumPy's message and stack (stderr),
a red ImportError traceback (MindSpore hands the error to ``sys.excepthook``) and
MindSpore's "Numpy init failed" log line (file descriptor 2) under the cell."""

import os

import nbformat
import pytest

from benchmarks.support.nbrun import execute_in_place, output_text

pytestmark = pytest.mark.mindspore

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_first_comparison_in_a_kernel_shows_no_numpy_error(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(f"import sys\nsys.path.insert(0, {ROOT!r})"),
        nbformat.v4.new_code_cell(
            "import ascend_lab\n"
            "from tests.numerics import nets\n"
            'r = ascend_lab.compare_numerics(nets.Head(), nets.inputs(), amp="O2")\n'
            'print("pairs", len(r.pairs))'
        ),
    ]
    execute_in_place(nb, str(tmp_path / "first_op.ipynb"))  # a fresh kernel: the first op
    cell = nb.cells[1]
    assert [o["output_type"] for o in cell.outputs] == ["stream"], output_text(cell)[:2000]
    assert cell.outputs[0]["name"] == "stdout" and output_text(cell) == "pairs 5\n"
