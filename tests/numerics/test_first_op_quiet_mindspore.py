"""The first comparison of a process (MindSpore 2.10 with NumPy 2: its first PyNative op
trips NumPy's "compiled using NumPy 1.x" check) writes nothing to ``sys.stderr``: a notebook
shows that stream under the cell, and notebook 06's first comparison showed NumPy's message
and a 40-line stack there."""

import pytest

from tests.support.python import run_python

pytestmark = pytest.mark.mindspore

# A fresh process: the throw-away op runs once per process. Python-level stderr is what a
# notebook shows; MindSpore's own C++ log lines go to file descriptor 2 and stay.
PROGRAM = """
import io, sys
import mindspore  # noqa: F401
import ascend_lab
from tests.numerics import nets
caught = io.StringIO()
real, sys.stderr = sys.stderr, caught
try:
    result = ascend_lab.compare_numerics(nets.Head(), nets.inputs(), amp="O2")
finally:
    sys.stderr = real
print("PAIRS", len(result.pairs))
print("STDERR<<" + caught.getvalue() + ">>")
"""


def test_the_first_comparison_of_a_process_writes_nothing_to_python_stderr():
    out = run_python(PROGRAM, timeout=600).stdout  # run from the repo root: this checkout
    assert "PAIRS 5" in out
    caught = out[out.index("STDERR<<") + len("STDERR<<") : out.rindex(">>")]
    assert caught == "", caught[:500]
