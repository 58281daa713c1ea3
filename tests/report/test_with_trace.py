"""``ascend-lab report --with-trace`` live on the fake machine (real MindSpore on CPU), and
``%ascend_report`` in IPython."""

import json
import os

import pytest

from ascend_lab.report import status_from_bundle, traces_html

from .conftest import PLANTED, entries, extract, manifest, run_cli


@pytest.mark.mindspore
def test_with_trace_bundle_replays_and_its_traces_open(planted_machine, tmp_path):
    machine, env = planted_machine
    out = str(tmp_path / "t.tar.gz")
    made = run_cli(["report", "--with-trace", "--out", out], env, str(tmp_path), timeout=600)
    assert made.returncode == 0, made.stderr
    folder = extract(out, str(tmp_path / "x"))
    ok = entries(folder, "ok")
    for step in ("trace jit_level=O0", "trace jit_level=O1", "profile (3 steps)", "MindIR export"):
        assert step in ok
    # the fake machine has NPUs but this MindSpore is the CPU build: said, then CPU used
    assert "use the Ascend backend" in entries(folder, "failed")
    assert os.path.isfile(os.path.join(folder, "trace", "net.mindir"))
    kernel = [
        n for n in os.listdir(os.path.join(folder, "trace", "O0", "dump")) if "graph_build" in n
    ]
    assert kernel
    assert status_from_bundle(out).mode == "ascend"
    pages = traces_html(out, str(tmp_path / "pages"))
    assert [os.path.basename(p) for p in pages] == [
        "index.html",
        "trace_O0.html",
        "trace_O1.html",
        "mindir.html",
    ]
    assert "Conv2D" in open(pages[1]).read()
    profile = os.listdir(os.path.join(folder, "trace", "profile"))
    assert profile and all(n.startswith("<host-") for n in profile)  # "<host>_<pid>_..."
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            path = os.path.join(dirpath, n)
            assert PLANTED["host"] not in path
            assert PLANTED["host"].encode() not in open(path, "rb").read()
    assert manifest(folder)["time_budget_seconds"] == 600


def test_ascend_report_magic_writes_the_archive(planted_machine, tmp_path, capsys, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    import ascend_lab

    machine, env = planted_machine
    machine.activated(monkeypatch, sourced=True)
    ip = InteractiveShell.instance()  # the one other magic tests in this process use too
    ascend_lab.load_ipython_extension(ip)
    out = tmp_path / "m.tar.gz"
    ip.run_line_magic("ascend_report", f"--out {out}")
    printed = capsys.readouterr().out
    assert "ascend mode (8 NPU chips found by npu-smi)" in printed and out.is_file()
    folder = extract(str(out), str(tmp_path / "x"))
    assert json.load(open(os.path.join(folder, "status.json")))["mode"] == "ascend"
    ip.run_line_magic("ascend_report", "--bogus")
    assert "Usage: %ascend_report" in capsys.readouterr().out


def test_ascend_report_magic_takes_the_cli_options_including_course():
    # the magic parses with the CLI's own parser, so --course records the course's bundle
    # from a notebook as `ascend-lab report --course` does (its run: test_course_bundle.py)
    from ascend_lab.i18n.magic_args import MagicArgumentParser
    from ascend_lab.magics import HELP
    from ascend_lab.report.cli import add_arguments
    from ascend_lab.report.magic import USAGE

    parser = MagicArgumentParser("%ascend_report")
    add_arguments(parser)
    args = parser.parse_args(["--course", "--out", "x.tar.gz"])
    assert args.course and args.out == "x.tar.gz" and not args.with_trace
    assert "--course" in USAGE and "--course" in HELP["ascend_report"]
