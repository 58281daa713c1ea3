"""Hostile input for the device status, kernel names, the course copy and suggested commands.

Memory is bounded by running the probe in a child process under ``RLIMIT_AS`` (1 GiB) and
reading that child's peak RSS; hangs are bounded by answers far beyond what the code needs
(a linear parse of 1 MB takes milliseconds, the quadratic one it replaced took hours).
"""

import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

from ascend_lab.kernel import spec
from ascend_lab.parsers import npu_smi
from ascend_lab.probes import device as probe
from ascend_lab.probes import npu_smi_runner
from benchmarks.support.fakes.ascend_machine import REPO, fixture_path, make_fake_machine

LIMIT_MB = 1024  # address-space limit of the measuring child
BOUND_S = 60  # generous bound for answers that take well under a second


@pytest.fixture(autouse=True)
def _fresh_probe_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()


def probe_in_child(env, code):
    """Run ``code`` (which prints one JSON line) in a child under RLIMIT_AS; add its peak RSS."""
    program = textwrap.dedent(
        f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({LIMIT_MB} << 20, {LIMIT_MB} << 20))
        out = {{}}
        exec(compile({code!r}, "<probe>", "exec"))
        # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across fork+exec, so a child of a big
        # pytest process (MindSpore loaded) would report its parent's size
        with open("/proc/self/status") as fh:
            hwm = next(line for line in fh if line.startswith("VmHWM:"))
        out["peak_rss_mb"] = int(hwm.split()[1]) / 1024
        print(json.dumps(out))
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", program],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


STATUS_CODE = """
from ascend_lab.probes.device import collect_status
s = collect_status(refresh=True, timeout=5)
text = s.to_json()
out.update(mode=s.mode, reason=s.reason, json_bytes=len(text.encode()),
           warnings=[w.message for w in s.warnings], processes=len(s.processes))
"""


# -- npu-smi that floods its output ------------------------------------------------------


@pytest.mark.parametrize("behaviour", ["flood", "flood_stderr"])
def test_flooding_npu_smi_is_stopped_at_the_byte_cap(tmp_path, behaviour):
    m = make_fake_machine(tmp_path, behaviour=behaviour)
    out = probe_in_child(m.environ(), STATUS_CODE)
    assert out["mode"] == "cpu"
    assert out["reason"] == "npu-smi printed more than 1024 KiB; stopped it"
    # before: the same fake took the probe to 3.8 GB; now it holds at most the 1 MiB cap
    assert out["peak_rss_mb"] < 200, out
    assert m.calls() == ["info"] and m.live_processes() == []  # the writing child killed too


def test_runner_cap_is_configurable_and_keeps_what_fits(tmp_path):
    m = make_fake_machine(tmp_path)
    small = npu_smi_runner.run_npu_smi(m.npu_smi, ["info"], timeout=BOUND_S, max_bytes=100)
    assert not small.ok and small.reason == "npu-smi printed more than 0 KiB; stopped it"
    full = npu_smi_runner.run_npu_smi(m.npu_smi, ["info"], timeout=BOUND_S)
    with open(fixture_path("info_910b3_x8_npu-smi-25.2.0.txt"), encoding="utf-8") as f:
        assert full.ok and full.stdout == f.read()


# -- unreadable or too many rows -----------------------------------------------------------


def _info_with_process_lines(lines):
    with open(fixture_path("info_910b3_x8_npu-smi-25.2.0.txt"), encoding="utf-8") as f:
        return f.read() + "".join(line + "\n" for line in lines)


def test_100k_unreadable_process_lines_give_a_small_status(tmp_path):
    # 100,001 warnings and a 20.7 MB status JSON before
    text = _info_with_process_lines(["| 2       0   | not-a-pid | x | y |"] * 100_000)
    m = make_fake_machine(tmp_path, info_text=text)
    out = probe_in_child(m.environ(), STATUS_CODE)
    assert out["json_bytes"] < 64 * 1024, out["json_bytes"]
    assert len(out["warnings"]) <= 21
    assert out["reason"] == "npu-smi printed more than 1024 KiB; stopped it"


def test_unreadable_lines_under_the_cap_keep_20_problems_and_a_count(tmp_path, monkeypatch):
    text = _info_with_process_lines([f"| 2       0   | pid{i} | x | y |" for i in range(5000)])
    assert len(text.encode()) < npu_smi_runner.MAX_OUTPUT
    make_fake_machine(tmp_path, info_text=text).activated(monkeypatch)
    s = probe.collect_status(refresh=True)
    assert s.mode == "ascend" and len(s.chips) == 8
    messages = [w.message for w in s.warnings]
    # the count first, then the first problems, then what the cap of 20 left out
    assert messages[0] == "5000 parts of npu-smi's output could not be read (the first 20 follow)"
    assert messages[1].endswith("unreadable process line: | 2       0   | pid0 | x | y |")
    assert sum("unreadable process line" in m for m in messages) == 19
    assert messages[20:] == ["2 more warnings not shown"]  # the 20th problem, set_env.sh
    assert len(s.to_json()) < 64 * 1024


def test_process_rows_are_capped_with_a_count(tmp_path, monkeypatch):
    rows = [f"| 2       0   | {1000 + i} | train.py | 10 |" for i in range(3000)]
    make_fake_machine(tmp_path, info_text=_info_with_process_lines(rows)).activated(monkeypatch)
    s = probe.collect_status(refresh=True)
    assert len(s.processes) == 100
    assert [p.pid for p in s.processes[:2]] == [1333928, 1000]  # the fixture's row, then ours
    (w,) = [w for w in s.warnings if "more processes" in w.message]
    assert w.message == "2901 more processes on the NPUs are not shown (the first 100 are)"


def test_warnings_are_capped_at_20_plus_a_count(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    missing = [os.path.join(m.root, f"custom{i}") for i in range(50)]
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", os.pathsep.join(missing))
    s = probe.collect_status(refresh=True)
    assert len(s.warnings) == 21
    assert s.warnings[-1].message == "30 more warnings not shown"


# -- adversarial text for the npu-smi parser (linear, no regex backtracking) ---------------

ADVERSARIAL_1MB = {
    "one long word": "| 0 910B3 | OK | " + "9" * 1_000_000 + " |",
    "slashes and spaces": "| 0 | 0000:C1:00.0 | 0 " + "/ " * 500_000 + "|",
    "long separator": "+" + "-+=" * 333_333 + "x",
    "header repeated": "npu-smi " * 125_000,
    "spaces only": " " * 1_000_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL_1MB))
def test_parser_is_linear_on_1mb_lines(name):
    code = f"""
import json, sys
from ascend_lab.parsers import npu_smi
from tests.hostile.test_device_hostile import ADVERSARIAL_1MB
header = open({fixture_path("info_910b3_x8_npu-smi-25.2.0.txt")!r}).read().split("+===")[0]
info = npu_smi.parse_info(header + ADVERSARIAL_1MB[{name!r}] + "\\n")
out.update(problems=len(info.problems), chips=len(info.chips))
"""
    out = probe_in_child(dict(os.environ, PYTHONPATH=REPO), code)  # within BOUND_S
    assert out["problems"] <= npu_smi.MAX_PROBLEMS


def test_tokens_match_the_regex_they_replaced():
    import random
    import re

    pair = re.compile(r"(\S+?)\s*/\s*(\S+)")
    rng = random.Random(11)
    for _ in range(20000):
        cell = "".join(rng.choice(" /a1-\t") for _ in range(rng.randint(0, 14)))
        assert npu_smi._tokens(cell) == pair.sub(r"\1/\2", cell).split(), repr(cell)
    assert npu_smi._tokens("41052/ 65536  0    / 0  3 /4") == ["41052/65536", "0/0", "3/4"]


# -- kernel names and uninstall confinement ------------------------------------------------


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", *args],
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        env=env,
        cwd=REPO,
    )


@pytest.mark.parametrize("name", ["..", ".", "a\n", "../evil", "a/b", "-x", "", "_x", "ms pore"])
def test_bad_kernel_names_are_refused_with_a_message(tmp_path, name):
    prefix = tmp_path / "prefix"
    for command, extra in (("install-kernel", ["--cpu"]), ("uninstall-kernel", [])):
        r = _cli(command, f"--name={name}", "--prefix", str(prefix), *extra)
        assert r.returncode != 0
        assert f"ascend-lab {command}: error: invalid kernel name" in r.stderr
        assert "Traceback" not in r.stderr
    assert not prefix.exists()  # nothing written


def test_uninstall_dotdot_keeps_the_kernels_folder(tmp_path):
    prefix = tmp_path / "prefix"
    kernels = prefix / "share" / "jupyter" / "kernels"
    (kernels / "python3").mkdir(parents=True)
    (kernels / "python3" / "kernel.json").write_text('{"argv": ["python"]}')
    # a kernel.json carrying our marker right in kernels/ must not make ".." removable
    (kernels / "kernel.json").write_text(json.dumps(spec.build_kernel_json(None)))
    r = _cli("uninstall-kernel", "--name", "..", "--prefix", str(prefix))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert (kernels / "python3" / "kernel.json").is_file()


def test_uninstall_refuses_a_symlink_out_of_the_kernels_folder(tmp_path):
    elsewhere = tmp_path / "precious"
    elsewhere.mkdir()
    (elsewhere / "kernel.json").write_text(json.dumps(spec.build_kernel_json(None)))
    kernels = tmp_path / "prefix" / "share" / "jupyter" / "kernels"
    kernels.mkdir(parents=True)
    (kernels / "mindspore").symlink_to(elsewhere)
    r = _cli("uninstall-kernel", "--prefix", str(tmp_path / "prefix"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "not a kernel folder named 'mindspore' directly inside" in r.stderr
    assert (elsewhere / "kernel.json").is_file()


def test_uninstall_checks_path_and_marker(tmp_path):
    kernels = tmp_path / "kernels"
    ours = kernels / "mindspore"
    ours.mkdir(parents=True)
    (ours / "kernel.json").write_text(json.dumps(spec.build_kernel_json(None)))
    with pytest.raises(spec.KernelSpecError, match="not a kernel folder named 'other'"):
        spec.uninstall(str(ours), "other", [str(kernels)])
    with pytest.raises(spec.KernelSpecError, match="directly inside"):
        spec.uninstall(str(ours), "mindspore", [str(tmp_path / "other-kernels")])
    (ours / "kernel.json").write_text('{"argv": ["python"]}')  # no marker
    with pytest.raises(spec.KernelSpecError, match="not installed by ascend-lab"):
        spec.uninstall(str(ours), "mindspore", [str(kernels)])
    (ours / "kernel.json").write_text(json.dumps(spec.build_kernel_json(None)))
    spec.uninstall(str(ours), "mindspore", [str(kernels)])
    assert not ours.exists() and kernels.is_dir()


# -- the course copy -----------------------------------------------------------------------


def test_course_dir_inside_the_source_is_refused(tmp_path):
    from ascend_lab.course import command as course_cmd

    source = os.path.join(REPO, "notebooks")
    env = dict(
        os.environ,
        HOME=str(tmp_path),
        JUPYTER_DATA_DIR=str(tmp_path / "jd"),
        ASCEND_LAB_KERNEL_PREFIX=str(tmp_path / "prefix"),
        ASCEND_LAB_ASCEND_ROOT=str(tmp_path / "no-ascend"),
        PATH=os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
    )
    nested = os.path.join(source, "my-copy")
    for target in (nested, source):
        r = _cli("course", "--dry-run", "--dir", target, env=env)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert "is inside the course's own folder" in r.stderr
    assert not os.path.exists(nested)
    with pytest.raises(ValueError, match="is inside"):
        course_cmd.copy_course(source, nested)
    assert not os.path.exists(nested)


# -- suggested shell commands are quoted ---------------------------------------------------


def test_suggested_commands_survive_spaces_in_paths(tmp_path, monkeypatch):
    from ascend_lab.server.course_locator import locate_course

    m = make_fake_machine(tmp_path / "my folder $(x)").activated(monkeypatch)
    s = probe.collect_status(refresh=True)
    (w,) = [w for w in s.warnings if w.component == "environment"]
    command = w.fix.split("   (")[0]
    assert shlex.split(command) == ["source", os.path.join(m.root, "ascend-toolkit", "set_env.sh")]

    course = tmp_path / "course dir"
    course.mkdir()
    (course / "00_start.ipynb").write_text("{}")
    root = tmp_path / "server root"
    root.mkdir()
    message = locate_course(str(course), str(root), [])["message"]
    cp = message.split("`")[1]
    assert shlex.split(cp) == ["cp", "-r", str(course), str(root / "notebooks")]
