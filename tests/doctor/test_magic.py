"""``%ascend_doctor`` as a function, and in a real IPython kernel."""

import sys

import nbformat
import pytest
from nbclient import NotebookClient

from ascend_lab.doctor.diagnosis import Diagnosis
from ascend_lab.doctor.magic import doctor_magic, last_exception_text, parse


class FakeShell:
    _last_traceback = None


def test_parse_arguments():
    assert parse("", None) == ("last exception", None)
    assert parse('  "Response is empty"  ', None) == ("text", "Response is empty")
    assert parse("'EI0006'", None) == ("text", "EI0006")
    assert parse("EE8888 here", None) == ("text", "EE8888 here")
    assert parse('"line1\\nline2"', None) == ("text", "line1\nline2")
    assert parse("", "pasted\nlog") == ("cell", "pasted\nlog")


def test_last_exception_includes_chained_causes(monkeypatch):
    try:
        try:
            raise OSError("libascendcl.so: cannot open shared object file: No such file")
        except OSError as inner:
            raise RuntimeError("MindSpore failed to start") from inner
    except RuntimeError as exc:
        monkeypatch.setattr(sys, "last_value", exc, raising=False)
        monkeypatch.setattr(sys, "last_exc", exc, raising=False)
    text = last_exception_text(FakeShell())
    assert "libascendcl.so" in text and "MindSpore failed to start" in text
    assert "direct cause" in text
    diag = doctor_magic(FakeShell(), "", None)
    assert isinstance(diag, Diagnosis)
    assert diag.source == "last exception"
    assert diag.findings[0].id == "set-env-not-sourced"


def test_no_exception_yet_checks_environment(monkeypatch):
    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_exc", raising=False)
    diag = doctor_magic(FakeShell(), "", None)
    assert diag.source == "environment"
    assert "No exception in this session yet" in diag.notes[0]


def test_structured_traceback_fallback_strips_colors(monkeypatch):
    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_exc", raising=False)
    shell = FakeShell()
    shell._last_traceback = ["\x1b[0;31mRuntimeError\x1b[0m: Response is empty"]
    assert last_exception_text(shell) == "RuntimeError: Response is empty"


def _run_notebook(cells, tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    return nb


def _outputs(cell, mime):
    found = []
    for out in cell.outputs:
        data = out.get("data", {})
        if mime in data:
            found.append(data[mime])
        if mime == "text/plain" and out.get("output_type") == "stream":
            found.append(out.get("text", ""))
    return "\n".join(found)


@pytest.fixture(scope="module")
def kernel_notebook(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("doctor_kernel")
    repo = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    cells = [
        f"import sys; sys.path.insert(0, {repo!r})\n%load_ext ascend_lab",
        # 1: a known error, raised with a chained cause
        "try:\n"
        "    raise OSError('dcmi model initialized failed, because the device is used. '\n"
        "                  'ret is -8020')\n"
        "except OSError as e:\n"
        "    raise RuntimeError('could not open NPU 0') from e",
        "%ascend_doctor",
        "%%ascend_doctor\nsome log line\n[ERROR] HCCL(1,python):2025 [hccl_socket_manager.cc:778] "
        "[Wait][LinkEstablish]wait socket establish timeout, role[1] rank[12] timeout[120]\n",
        '%ascend_doctor "Can not find any available kernel info for: HSwish <b>x</b>"',
        "import sys; print('mindspore imported:', 'mindspore' in sys.modules)",
        "d = %ascend_doctor 'Response is empty'\n"
        "print(type(d).__name__, [f.id for f in d.findings])",
    ]
    return _run_notebook(cells, tmp_path)


@pytest.mark.slow
def test_kernel_last_exception(kernel_notebook):
    cells = kernel_notebook.cells
    assert any(o.get("output_type") == "error" for o in cells[1].outputs)
    html = _outputs(cells[2], "text/html")
    assert "The NPU is already in use by another process or container" in html
    assert "ret is -8020" in html
    assert "examined last exception" in html
    plain = _outputs(cells[2], "text/plain")
    assert "device occupied (设备被占用)" in plain


@pytest.mark.slow
def test_kernel_cell_magic_and_quoted_text(kernel_notebook):
    cells = kernel_notebook.cells
    html = _outputs(cells[3], "text/html")
    assert "HCCL could not connect the ranks in time" in html
    assert "examined cell" in html and "line 2:" in html
    html = _outputs(cells[4], "text/html")
    assert "Operator not supported on this NPU" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html


@pytest.mark.slow
def test_kernel_magic_does_not_import_mindspore_and_returns_diagnosis(kernel_notebook):
    cells = kernel_notebook.cells
    assert "mindspore imported: False" in _outputs(cells[5], "text/plain")
    assert "Diagnosis ['op-compile-response-empty']" in _outputs(cells[6], "text/plain")


@pytest.mark.slow
@pytest.mark.mindspore
def test_kernel_real_mindspore_error(tmp_path):
    """A real graph-mode MindSpore error in one cell, ``%ascend_doctor`` in the next."""
    repo = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    cells = [
        f"import sys; sys.path.insert(0, {repo!r})\n%load_ext ascend_lab",
        "import numpy as np\n"
        "import mindspore as ms\n"
        "from mindspore import nn, Tensor\n"
        "ms.set_context(mode=ms.GRAPH_MODE)\n"
        "net = nn.Dense(4, 3)\n"
        "net(Tensor(np.ones((2, 5), np.float32)))",
        "%ascend_doctor",
    ]
    nb = _run_notebook(cells, tmp_path)
    errors = [o for o in nb.cells[1].outputs if o.get("output_type") == "error"]
    assert errors and errors[0]["ename"] == "ValueError"
    html = _outputs(nb.cells[2], "text/html")
    assert "Matrix multiply with mismatched inner dimensions: MatMul" in html
    assert "&#x27;x1_col&#x27;: 5 and &#x27;x2_row&#x27;: 4" in html
