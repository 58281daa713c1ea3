"""A fake Ascend machine for tests: a fake ``npu-smi`` on PATH and a fake install root.

Usage (any test, e.g. the server extension's)::

    from benchmarks.support.fakes.ascend_machine import make_fake_machine

    machine = make_fake_machine(tmp_path)                 # 8 x 910B3, prints the fixture
    env = machine.environ()                               # os.environ + PATH + root, no ASCEND_*
    subprocess.run([sys.executable, "-m", "ascend_lab", "status", "--json"], env=env)

    with machine.activated():                             # same, in-process, undone on exit
        collect_status(refresh=True)
    machine.activated(monkeypatch)                        # or undone by monkeypatch's teardown

The machine pins the MindSpore version it reports (``mindspore=``, default
``PINNED_MINDSPORE``): a ``mindspore-<version>.dist-info`` folder in a site folder put first
on ``sys.path`` / ``PYTHONPATH``, so verdicts never depend on the MindSpore installed in the
test environment.

Behaviours of the fake ``npu-smi``: ``"print"`` (the chosen fixture; ``-t board|usages|
health`` print the matching fixtures), ``"hang"`` (sleeps in a child process, so a
timeout must kill the whole process group), ``"fail"`` (exit 255 with a driver error),
``"garbage"`` (exit 0, nonsense), ``"empty"`` (exit 0, nothing), ``"not_executable"``,
``"flood"`` (prints lines forever from a child process, as ``yes`` does), ``"flood_stderr"``
(the same on stderr).
"""

import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
NPU_SMI_FIXTURES = os.path.join(FIXTURES, "npu_smi")
ASCEND_TREE = os.path.join(FIXTURES, "ascend_tree")
SYNTHETIC = os.path.join(HERE, "npu_smi")  # variants written for tests (see its README)

DEFAULT_INFO = "info_910b3_x8_npu-smi-25.2.0.txt"
BEHAVIOURS = (
    "print",
    "print_fail",  # print the info text (a recorded failure) and exit 255, as npu-smi does
    "hang",
    "fail",
    "garbage",
    "empty",
    "not_executable",
    "flood",
    "flood_stderr",
)
# compat.json pairs MindSpore 2.8.0 with no CANN (its row's note says why), so with the
# fixture tree (CANN 8.3.RC2, driver 24.1.rc1) the verdict is "unknown" and the status has no
# compatibility warning. Tests that need "match" or "mismatch" pin another version.
PINNED_MINDSPORE = "2.8.0"

ASCEND_ENV_VARS = (
    "ASCEND_HOME_PATH",
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_OPP_PATH",
    "ASCEND_CUSTOM_OPP_PATH",
    "ASCEND_RT_VISIBLE_DEVICES",
    "ASCEND_LAB_ASCEND_ROOT",
    "LD_LIBRARY_PATH",
)


def fixture_path(name: str) -> str:
    """A recorded fixture (tests/fixtures/npu_smi) or a synthetic one (fakes/npu_smi)."""
    for d in (NPU_SMI_FIXTURES, SYNTHETIC):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise FileNotFoundError(name)


@dataclass
class FakeMachine:
    bin_dir: str
    root: str
    npu_smi: str
    log: str  # each npu-smi call appends its arguments here, one line per call
    env: Dict[str, str] = field(default_factory=dict)  # the variables to set
    site: Optional[str] = None  # holds mindspore-<version>.dist-info; first on sys.path
    mindspore: Optional[str] = None  # the version pinned there
    _saved: List[Tuple[Dict[str, Optional[str]], List[str]]] = field(default_factory=list)

    def environ(
        self, base: Optional[Dict[str, str]] = None, sourced: bool = False
    ) -> Dict[str, str]:
        """A full environment: ``base`` (os.environ) without ASCEND_* variables, plus ours.

        ``sourced=True`` adds what CANN's set_env.sh would set for the fake root.
        """
        out = dict(os.environ if base is None else base)
        for k in ASCEND_ENV_VARS:
            out.pop(k, None)
        out.update(self.env)
        out["PATH"] = self.bin_dir + os.pathsep + out.get("PATH", "/usr/bin:/bin")
        pythonpath = out.get("PYTHONPATH")
        first = [REPO] + ([self.site] if self.site else [])
        out["PYTHONPATH"] = os.pathsep.join(first + ([pythonpath] if pythonpath else []))
        if sourced:
            out.update(self.sourced_env())
        return out

    def sourced_env(self) -> Dict[str, str]:
        home = os.path.join(self.root, "ascend-toolkit", "latest")
        if not os.path.isdir(home):  # "latest" is a text file in a symlink-less checkout
            home = os.path.join(self.root, "ascend-toolkit", "8.3.RC2")
        return {
            "ASCEND_HOME_PATH": home,
            "ASCEND_TOOLKIT_HOME": home,
            "ASCEND_OPP_PATH": os.path.join(home, "opp"),
            "LD_LIBRARY_PATH": os.path.join(home, "lib64"),
        }

    def activated(self, monkeypatch: Any = None, sourced: bool = False) -> "FakeMachine":
        """Apply the environment and the pinned MindSpore to this process.

        Undone when a ``with`` block over the result exits, or by ``monkeypatch``'s teardown
        when one is given (for fixtures that return the machine).
        """
        touched = set(ASCEND_ENV_VARS) | {"PATH"} | set(self.env) | set(self.sourced_env())
        self._saved.append(({k: os.environ.get(k) for k in touched}, list(sys.path)))
        changes: Dict[str, Optional[str]] = {k: None for k in ASCEND_ENV_VARS}
        changes["PATH"] = self.bin_dir + os.pathsep + os.environ.get("PATH", "")
        changes.update(self.env)
        if sourced:
            changes.update(self.sourced_env())
        for k, v in changes.items():
            if monkeypatch is not None:
                if v is None:
                    monkeypatch.delenv(k, raising=False)
                else:
                    monkeypatch.setenv(k, v)
            elif v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if self.site:
            if monkeypatch is not None:
                monkeypatch.syspath_prepend(self.site)
            else:
                sys.path.insert(0, self.site)
        return self

    def __enter__(self) -> "FakeMachine":
        if not self._saved:
            raise RuntimeError("use `with machine.activated(...):`, not `with machine:`")
        return self

    def __exit__(self, *exc: Any) -> None:
        """Restore the variables and ``sys.path`` as they were before ``activated()``."""
        variables, path = self._saved.pop()
        for k, v in variables.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        sys.path[:] = path

    @property
    def pid_log(self) -> str:
        """Each npu-smi call appends its process id (its process group's id) here."""
        return self.log + ".pids"

    def live_processes(self, grace: float = 10.0) -> List[int]:
        """Processes still running (not zombies) in the groups of every npu-smi call, after
        waiting up to ``grace`` seconds for them to go: a killed process takes a moment to
        exit on a busy machine. Returns as soon as none is left (no fixed sleep)."""
        deadline = time.monotonic() + grace
        while True:
            live = self._live_now()
            if not live or time.monotonic() >= deadline:
                return live
            time.sleep(0.05)

    def _live_now(self) -> List[int]:
        try:
            with open(self.pid_log) as f:
                groups = {int(line) for line in f if line.strip()}
        except FileNotFoundError:
            return []
        live = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            # "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after ")"
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z" and int(fields[2]) in groups:
                live.append(int(entry))
        return live

    def calls(self) -> List[str]:
        try:
            with open(self.log) as f:
                return [line.rstrip("\n") for line in f]
        except FileNotFoundError:
            return []


def _script(behaviour: str, info: str, data_dir: str, log: str, hang_seconds: float) -> str:
    q = shlex.quote
    lines = ["#!/bin/sh", f'echo "$*" >> {q(log)}', f"echo $$ >> {q(log + '.pids')}"]
    if behaviour == "hang":
        # not exec: the sleep is a child, so killing only the shell would leave it running
        lines.append(f"sleep {hang_seconds}")
        lines.append(f"cat {q(info)}")
    elif behaviour == "fail":
        lines.append(
            "echo 'dcmi model initialized failed, because the device is used. ret is -8020' >&2"
        )
        lines.append("exit 255")
    elif behaviour == "print_fail":
        lines.append(f"cat {q(info)}")
        lines.append("exit 255")
    elif behaviour == "garbage":
        lines.append("printf 'Segmentation\\tfault?? |||| +--+ 0 0 | x / y\\n\\001\\002 NPU\\n'")
    elif behaviour == "empty":
        lines.append("exit 0")
    elif behaviour == "flood":
        # not exec: the writer is a child, so the whole process group must be killed
        lines.append("yes 'npu-smi flood line'")
    elif behaviour == "flood_stderr":
        lines.append("yes 'npu-smi flood line' >&2")
    else:
        lines.append('case "$*" in')
        lines.append(f'  "info") cat {q(info)} ;;')
        for kind in ("board", "usages", "health"):
            lines.append(
                '  "info -t {} "*) cat {} ;;'.format(kind, q(os.path.join(data_dir, kind + ".txt")))
            )
        lines.append('  *) echo "Usage: npu-smi info [-t type] [-i id] [-c chip]" >&2; exit 2 ;;')
        lines.append("esac")
    return "\n".join(lines) + "\n"


def make_fake_machine(
    tmp_path: Any,
    info: str = DEFAULT_INFO,
    behaviour: str = "print",
    info_text: Optional[str] = None,
    latest_symlink: bool = False,
    with_root: bool = True,
    hang_seconds: float = 30,
    mindspore: Optional[str] = PINNED_MINDSPORE,
) -> FakeMachine:
    """Create ``<tmp_path>/bin/npu-smi`` and ``<tmp_path>/Ascend`` (a copy of the fixture tree).

    - ``info``: fixture file name for ``npu-smi info`` (recorded or synthetic);
      ``info_text`` overrides it with literal text.
    - ``latest_symlink``: make ``ascend-toolkit/latest`` a real symlink (as on a real
      machine) instead of the text file a symlink-less checkout has.
    - ``with_root=False``: no install root (the env var points at a missing folder).
    - ``mindspore``: the MindSpore version the machine reports (``None``: whatever the test
      environment has installed; only for tests of that lookup itself).
    """
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"behaviour must be one of {BEHAVIOURS}")
    base = str(tmp_path)
    bin_dir = os.path.join(base, "bin")
    data_dir = os.path.join(base, "npu_smi_data")
    os.makedirs(bin_dir, exist_ok=True)
    os.makedirs(data_dir, exist_ok=True)
    info_file = os.path.join(data_dir, "info.txt")
    if info_text is None:
        shutil.copyfile(fixture_path(info), info_file)
    else:
        with open(info_file, "w", encoding="utf-8") as f:
            f.write(info_text)
    for kind, name in (
        ("board", "board_npu0.txt"),
        ("usages", "usages_npu0.txt"),
        ("health", "health_npu0_chip0.txt"),
    ):
        shutil.copyfile(os.path.join(NPU_SMI_FIXTURES, name), os.path.join(data_dir, kind + ".txt"))
    log = os.path.join(base, "npu_smi_calls.log")
    exe = os.path.join(bin_dir, "npu-smi")
    with open(exe, "w") as f:
        f.write(_script(behaviour, info_file, data_dir, log, hang_seconds))
    mode = 0o644 if behaviour == "not_executable" else 0o755
    os.chmod(exe, mode)

    root = os.path.join(base, "Ascend")
    if with_root:
        shutil.copytree(ASCEND_TREE, root, symlinks=True)
        for dirpath, dirnames, filenames in os.walk(root):  # the shared tree is read-only
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                if not os.path.islink(p):
                    mode = os.stat(p).st_mode
                    os.chmod(p, mode | 0o200)  # add user write
        latest = os.path.join(root, "ascend-toolkit", "latest")
        if latest_symlink:
            if os.path.lexists(latest):
                os.remove(latest)
            os.symlink("8.3.RC2", latest)
        # what set_env.sh points at, so a "sourced" environment is consistent
        home = os.path.join(root, "ascend-toolkit", "8.3.RC2")
        os.makedirs(os.path.join(home, "opp"), exist_ok=True)
        os.makedirs(os.path.join(home, "lib64"), exist_ok=True)
    env = {"ASCEND_LAB_ASCEND_ROOT": root}
    site = pin_mindspore(os.path.join(base, "site"), mindspore) if mindspore else None
    return FakeMachine(
        bin_dir=bin_dir, root=root, npu_smi=exe, log=log, env=env, site=site, mindspore=mindspore
    )


def pin_mindspore(site: str, version: str, dist: str = "mindspore") -> str:
    """Make ``site`` hold only the metadata of MindSpore ``version`` (no code); return it."""
    info = os.path.join(site, f"{dist.replace('-', '_')}-{version}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    return site
