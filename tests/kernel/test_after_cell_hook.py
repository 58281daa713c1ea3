"""The extension's after-cell hook (ascend_lab.magics.after_cell): registered once however often
the extension loads, and a no-op until MindSpore is imported. What it does with MindSpore (a
broken pipe no longer ends the AKG build server) is tested on real MindSpore in
tests/tracing/test_akg_server_mindspore.py."""

import signal
import sys

from ascend_lab import magics
from ascend_lab.capture import akg_server


def test_the_hook_is_registered_once(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("ascend_lab")
    magics.register(shell)  # a second load (%reload_ext) must not add a second hook
    magics.register(shell)
    assert shell.events.callbacks["post_run_cell"].count(magics.after_cell) == 1


def test_without_mindspore_nothing_is_touched(monkeypatch):
    monkeypatch.delitem(sys.modules, "mindspore", raising=False)
    calls = []
    monkeypatch.setattr(signal, "signal", lambda *a: calls.append(a))
    magics.after_cell(None)
    assert akg_server.ignore_broken_pipes() is False
    assert calls == []


def test_with_mindspore_sigpipe_is_ignored_from_the_main_thread(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", sys)  # any module: only its presence counts
    calls = []
    monkeypatch.setattr(signal, "signal", lambda *a: calls.append(a))
    magics.after_cell(None)
    assert calls == [(signal.SIGPIPE, signal.SIG_IGN)]
