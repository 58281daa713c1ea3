"""``ascend-lab view`` never shows a traceback (issue #26) and never waits on a FIFO named
like a graph file (issue #24, finding 6); a report bundle is wired by the CLI layer (#25)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ascend_lab.cli import main
from tests.support.ir_fixtures import FIXTURES

LENET = FIXTURES / "lenet"
KERNEL_IR = LENET / "graph_build_0_0094.ir"
BUNDLE = Path(__file__).resolve().parents[1] / "fixtures" / "bundles" / "fake-910b3-x8.tar.gz"
REPO = Path(__file__).resolve().parents[2]


def _boom(*_args, **_kwargs):
    raise RuntimeError("parser bug\nsecond line of it")


def _one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_an_unexpected_parser_error_is_exit_2_one_line_and_an_error_page(
    tmp_path, monkeypatch, capsys
):
    import ascend_lab.parsers.ir.ir_text as ir_text

    monkeypatch.setattr(ir_text, "parse_ir_text", _boom)
    out = tmp_path / "page.html"
    assert main(["view", str(KERNEL_IR), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    line = _one_line_error(captured.err)
    assert line.startswith("ascend-lab view: ")
    assert "RuntimeError" in line and "parser bug second line of it" in line
    assert KERNEL_IR.name in line
    page = out.read_text(encoding="utf-8")
    assert "RuntimeError" in page and "parser bug" in page
    assert "Wrote an error page to" in captured.out


def test_an_unexpected_error_without_output_leaves_no_page(tmp_path, monkeypatch, capsys):
    import ascend_lab.parsers.ir.ir_text as ir_text

    monkeypatch.setattr(ir_text, "parse_ir_text", _boom)
    monkeypatch.chdir(tmp_path)
    assert main(["view", str(KERNEL_IR)]) == 2
    assert "RuntimeError" in _one_line_error(capsys.readouterr().err)
    assert os.listdir(tmp_path) == []


def test_an_unexpected_error_in_a_dump_folder_is_one_line(tmp_path, monkeypatch, capsys):
    import ascend_lab.results.trace as trace  # where a dump folder's Trace reads its passes

    monkeypatch.setattr(trace, "PassTimeline", _boom)
    out = tmp_path / "page.html"
    assert main(["view", str(LENET), "-o", str(out)]) == 2
    assert "RuntimeError" in _one_line_error(capsys.readouterr().err)
    assert "parser bug" in out.read_text(encoding="utf-8")


def test_an_unexpected_error_comparing_two_graphs_is_one_line(tmp_path, monkeypatch, capsys):
    import ascend_lab.comparison as comparison

    monkeypatch.setattr(comparison, "compare", _boom)
    code = main(["view", str(KERNEL_IR), str(KERNEL_IR), "-o", str(tmp_path / "cmp.html")])
    assert code == 2
    assert "RuntimeError" in _one_line_error(capsys.readouterr().err)


def test_an_unexpected_error_reading_a_bundle_is_one_line(tmp_path, monkeypatch, capsys):
    import ascend_lab.report.view as report_view

    monkeypatch.setattr(report_view, "traces_html", _boom)
    assert main(["view", str(BUNDLE), "-o", str(tmp_path / "pages")]) == 2
    line = _one_line_error(capsys.readouterr().err)
    assert "RuntimeError" in line and BUNDLE.name in line


def test_view_bundle_is_dispatched_by_the_cli_layer(tmp_path, capsys):
    from ascend_lab.viewfile import cli as view_cli

    out = tmp_path / "pages"
    assert main(["view", str(BUNDLE), "-o", str(out)]) == 0
    assert (out / "index.html").is_file()
    assert "page(s) to" in capsys.readouterr().out
    # the viewer alone does not import the bundle code: without the CLI layer it says so
    args = view_cli.argparse.Namespace(path=str(BUNDLE), other=None, lang=None)
    assert view_cli.run(args) == 2
    assert "report bundle" in capsys.readouterr().err


def test_status_and_doctor_from_bundle_need_the_cli_layer(capsys):
    import argparse

    from ascend_lab.device import cli as status_cli
    from ascend_lab.doctor import cli as doctor_cli

    args = argparse.Namespace(from_bundle=str(BUNDLE), json=True, lang=None)
    assert status_cli.run(args) == 2
    args = argparse.Namespace(
        from_bundle=str(BUNDLE), json=True, lang=None, input=None, max_mb=None, no_env=False
    )
    assert doctor_cli.run(args) == 2
    assert capsys.readouterr().err.count("--from needs") == 2


def _view_in_subprocess(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "view", *args],
        capture_output=True,
        text=True,
        cwd=str(cwd),
        env=env,
        timeout=60,  # a reader waiting on the FIFO would never return
    )


def test_a_fifo_named_x_ir_is_refused_at_once(tmp_path):
    fifo = tmp_path / "x.ir"
    os.mkfifo(str(fifo))
    r = _view_in_subprocess(str(fifo), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "FIFO" in _one_line_error(r.stderr) and "x.ir" in r.stderr
    r = _view_in_subprocess(str(fifo), "-o", str(tmp_path / "x.html"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "FIFO" in (tmp_path / "x.html").read_text(encoding="utf-8")


def test_a_fifo_among_a_dump_folders_passes_is_refused_at_once(tmp_path):
    folder = tmp_path / "dump"
    shutil.copytree(str(LENET), str(folder))
    (folder / "opt_pass_2_opt_a_0016.ir").unlink()
    os.mkfifo(str(folder / "opt_pass_2_opt_a_0016.ir"))
    r = _view_in_subprocess(str(folder), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    line = _one_line_error(r.stderr)
    assert "FIFO" in line and "opt_pass_2_opt_a_0016.ir" in line


def test_a_symlink_to_a_regular_ir_file_is_still_shown(tmp_path, capsys):
    link = tmp_path / "link.ir"
    link.symlink_to(KERNEL_IR)
    out = tmp_path / "link.html"
    assert main(["view", str(link), "-o", str(out)]) == 0
    assert out.stat().st_size > 0


def test_a_fifo_in_a_dump_folders_actor_set_is_refused_at_once(tmp_path):
    folder = tmp_path / "dump"
    shutil.copytree(str(LENET), str(folder))
    (folder / "actor_set").mkdir()
    os.mkfifo(str(folder / "actor_set" / "actor_set_kernel_graph_1.ir"))
    r = _view_in_subprocess(str(folder), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    line = _one_line_error(r.stderr)
    assert "FIFO" in line and "actor_set_kernel_graph_1.ir" in line
