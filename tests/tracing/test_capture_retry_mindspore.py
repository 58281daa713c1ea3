"""A fusion compile that reaches MindSpore's AKG build server before it is open is retried
once; any other compile error, or the same one without fusion, is not (capture/compile.py)."""

import pytest

from ascend_lab.capture import compile as capture_mod
from ascend_lab.errors.trace import TraceError

pytestmark = pytest.mark.mindspore


def _fake_compiles(monkeypatch, failures):
    """``_compile_with_dumps`` that raises the given errors first, then compiles (nothing).
    No real compile runs, so this worker's AKG build server does not matter here."""
    calls = []
    monkeypatch.setattr(capture_mod.akg_server, "dead_server", lambda: None)

    def fake(ms, net, inputs, workdir, fusion, level, run):
        calls.append(fusion)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return "out", 0.5, []

    monkeypatch.setattr(capture_mod, "_compile_with_dumps", fake)
    return calls


def _not_open():
    return TraceError("could not compile", ms_message="Send request before Open() error.")


def test_the_akg_server_not_open_is_retried_once_under_fusion(monkeypatch):
    from mindspore import nn

    calls = _fake_compiles(monkeypatch, [_not_open()])
    result = capture_mod.capture(nn.ReLU(), [], fusion=True)
    assert calls == [True, True] and result.output == "out"
    calls = _fake_compiles(monkeypatch, [_not_open(), _not_open()])
    with pytest.raises(TraceError, match="could not compile"):  # a second time is reported
        capture_mod.capture(nn.ReLU(), [], fusion=True)
    assert len(calls) == 2


def test_other_errors_and_compiles_without_fusion_are_not_retried(monkeypatch):
    from mindspore import nn

    calls = _fake_compiles(monkeypatch, [TraceError("bad net", ms_message="For 'MatMul' ...")])
    with pytest.raises(TraceError, match="bad net"):
        capture_mod.capture(nn.ReLU(), [], fusion=True)
    assert calls == [True]
    calls = _fake_compiles(monkeypatch, [_not_open()])
    with pytest.raises(TraceError):
        capture_mod.capture(nn.ReLU(), [], fusion=False)
    assert calls == [False]
