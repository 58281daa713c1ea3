"""``ascend-lab report`` on the fake Ascend machine, end to end, in subprocesses."""

import json
import os

from benchmarks.support.fakes.ascend_machine import make_fake_machine

from .conftest import PLANTED, entries, extract, manifest, run_cli


def verdicts(status):
    """What a person acts on: mode, reason, chips, versions, compatibility, warnings."""
    chips = [{k: v for k, v in c.items() if k != "details"} for c in status["chips"]]
    return {
        "mode": status["mode"],
        "reason": status["reason"],
        "chips": chips,
        "detail_views": [sorted(c["details"]) for c in status["chips"]],
        "processes": status["processes"],
        "versions": status["versions"],
        "compatibility": status["compatibility"]["verdict"],
        "warnings": [(w["severity"], w["component"]) for w in status["warnings"]],
    }


def doctor_verdicts(diag):
    # ("versions", "info") is the NumPy-2-with-MindSpore note: it follows the packages of the
    # Python that ran the check (a bundle recorded on 3.11 with NumPy 2 vs a live 3.8 leg with
    # NumPy 1), not the machine, so it is left out of machine-vs-replay comparisons.
    return [
        (c["check"], c["verdict"])
        for c in diag["environment"]
        if c["verdict"] != "info" or c["check"] != "versions"
    ]


def test_report_replays_as_status_and_doctor_with_the_live_verdicts(planted_machine, tmp_path):
    machine, env = planted_machine
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(["report", "--out", out], env, str(tmp_path))
    assert made.returncode == 0, made.stderr
    assert "ascend mode (8 NPU chips found by npu-smi)" in made.stdout
    live = run_cli(["status", "--json", "--details", "--refresh"], env, str(tmp_path))
    # replayed in an environment without the fake machine: only the bundle speaks
    plain = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    replay = run_cli(["status", "--from", out, "--json"], plain, str(tmp_path))
    assert replay.returncode == 0, replay.stderr
    live_status, replayed = json.loads(live.stdout), json.loads(replay.stdout)
    assert verdicts(replayed) == verdicts(live_status)
    assert replayed["mode"] == "ascend" and len(replayed["chips"]) == 8
    assert any(w["component"] == "environment" for w in replayed["warnings"])  # custom opp

    live_doc = run_cli(["doctor", "--json"], env, str(tmp_path))
    replay_doc = run_cli(["doctor", "--json", "--from", out], plain, str(tmp_path))
    assert replay_doc.returncode == live_doc.returncode
    live_d, replay_d = json.loads(live_doc.stdout), json.loads(replay_doc.stdout)
    assert doctor_verdicts(replay_d) == doctor_verdicts(live_d)
    assert any(  # the recorded machine's own problem (a missing custom-op folder) is replayed
        c["check"] == "status" and "ASCEND_CUSTOM_OPP_PATH" in c["lines"][0]
        for c in replay_d["environment"]
    )
    assert "ascend-lab-replay" not in replay_doc.stdout + replay.stdout  # sandbox unmapped


def test_doctor_from_bundle_examines_a_log_against_the_recorded_machine(planted_machine, tmp_path):
    machine, env = planted_machine
    out = str(tmp_path / "r.tar.gz")
    assert run_cli(["report", "--out", out], env, str(tmp_path)).returncode == 0
    log = tmp_path / "err.log"
    log.write_text(
        "dcmi model initialized failed, because the device is used. ret is -8020\n"
        "Out of Memory!!! Request memory size 123456\n"
        "ImportError: libascendcl.so: cannot open shared object file\n"
    )
    plain = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    live = run_cli(["doctor", str(log), "--json"], env, str(tmp_path))
    replay = run_cli(["doctor", str(log), "--json", "--from", out], plain, str(tmp_path))
    assert replay.returncode == live.returncode
    a, b = json.loads(live.stdout), json.loads(replay.stdout)
    assert [f["id"] for f in b["findings"]] == [f["id"] for f in a["findings"]]
    replayed = [(f.get("confirmation") or {}).get("verdict") for f in b["findings"]]
    assert replayed == [(f.get("confirmation") or {}).get("verdict") for f in a["findings"]]
    # the recorded process table confirms "device busy"; the sourced set_env.sh rules out
    # "set_env not sourced": both verdicts come from the bundle, not from this machine
    assert {"confirmed", "not confirmed"} <= set(replayed)


def test_nothing_planted_leaks_and_the_manifest_counts_redactions(planted_machine, tmp_path):
    machine, env = planted_machine
    user_log = tmp_path / "job.log"
    user_log.write_text(f"worker on {PLANTED['host']} ({PLANTED['ip']}) died\n")
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(["report", "--out", out, "--log", str(user_log)], env, str(tmp_path))
    assert made.returncode == 0, made.stderr
    folder = extract(out, str(tmp_path / "x"))
    secrets = [PLANTED["host"], PLANTED["user"], PLANTED["ip"], PLANTED["serial"], env["HOME"]]
    seen = {}
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            path = os.path.join(dirpath, n)
            data = open(path, "rb").read()
            for s in secrets:
                assert s.encode() not in data, f"{s} in {os.path.relpath(path, folder)}"
                assert s not in os.path.relpath(path, folder)
            seen[os.path.relpath(path, folder)] = data
    # the planted places were collected (so the check above looked at them)
    assert b"<serial-1>" in seen["machine/npu-smi/info_t_board_i_0.txt"]
    assert b"<host-" in seen["machine/ascend/driver_version.info"]
    assert b"<ip-1>" in seen["machine/environment.json"]
    assert any(p.startswith("logs/plog/") and b"<ip-1>" in d for p, d in seen.items())
    assert any(p.startswith("logs/user/") for p in seen)
    red = manifest(folder)["redactions"]
    assert {"host", "user", "home", "ip", "serial"} <= set(red)
    assert red["serial"]["distinct"] == 1 and red["serial"]["replaced"] >= 8
    assert "Redacted" in (seen["MANIFEST.txt"].decode()) and "serial" in made.stdout


def test_no_redact_keeps_values_and_warns(planted_machine, tmp_path):
    machine, env = planted_machine
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(["report", "--out", out, "--no-redact"], env, str(tmp_path))
    assert made.returncode == 0 and "WARNING --no-redact" in made.stderr
    folder = extract(out, str(tmp_path / "x"))
    board = open(os.path.join(folder, "machine/npu-smi/info_t_board_i_0.txt")).read()
    assert PLANTED["serial"] in board
    assert manifest(folder)["redacted"] is False
    assert "NOT REDACTED" in open(os.path.join(folder, "MANIFEST.txt")).read()


def test_cpu_machine_is_recorded_as_cpu_mode(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    env["ASCEND_LAB_ASCEND_ROOT"] = str(tmp_path / "no-ascend-here")
    env["PATH"] = "/usr/bin:/bin"
    out = str(tmp_path / "cpu.tar.gz")
    made = run_cli(["report", "--out", out], env, str(tmp_path))
    assert made.returncode == 0, made.stderr
    assert "cpu mode (npu-smi not found on PATH)" in made.stdout
    folder = extract(out, str(tmp_path / "x"))
    status = json.load(open(os.path.join(folder, "status.json")))
    assert status["mode"] == "cpu" and status["chips"] == []
    assert "npu-smi" in entries(folder, "missing")
    replay = run_cli(["status", "--from", out, "--json"], env, str(tmp_path))
    assert json.loads(replay.stdout)["reason"] == "npu-smi not found on PATH"


def test_hanging_npu_smi_is_recorded_as_timed_out_within_the_budget(tmp_path):
    machine = make_fake_machine(tmp_path / "m", behaviour="hang", hang_seconds=600)
    env = machine.environ(sourced=True)
    out = str(tmp_path / "hang.tar.gz")
    made = run_cli(
        ["report", "--out", out, "--timeout", "1", "--budget", "20"], env, str(tmp_path), timeout=60
    )  # a 600 s hang, answered within 60 s
    assert made.returncode == 0, made.stderr
    folder = extract(out, str(tmp_path / "x"))
    assert "npu-smi info" in entries(folder, "timed out")
    status = json.load(open(os.path.join(folder, "status.json")))
    assert status["reason"] == "npu-smi timed out after 1 s"
    assert machine.live_processes() == []  # the hung npu-smi and its child were killed
    replay = run_cli(["status", "--from", out, "--json"], env, str(tmp_path))
    assert json.loads(replay.stdout)["reason"] == "npu-smi timed out after 1 s"


def test_size_limit_drops_logs_first_and_says_so(planted_machine, tmp_path):
    machine, env = planted_machine
    big = tmp_path / "big.log"
    big.write_bytes(os.urandom(900 * 1024).hex().encode()[: 1024 * 1024])
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(
        ["report", "--out", out, "--log", str(big), "--max-mb", "0.5"], env, str(tmp_path)
    )
    assert made.returncode == 0, made.stderr
    folder = extract(out, str(tmp_path / "x"))
    dropped = entries(folder, "dropped")
    assert dropped and all(p.startswith("logs/") for p in dropped)
    assert os.path.getsize(out) <= 0.5 * 1024 * 1024
    assert run_cli(["status", "--from", out], env, str(tmp_path)).returncode == 0


def test_bad_input_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not an archive")
    for cmd in (["status", "--from", str(junk)], ["doctor", "--from", str(junk)]):
        res = run_cli(cmd, dict(os.environ), str(tmp_path))
        assert res.returncode == 2
        assert "not a readable ascend-lab report archive" in res.stderr
    res = run_cli(["report", "--budget", "-1"], dict(os.environ), str(tmp_path))
    assert res.returncode == 2 and "--budget must be a positive number" in res.stderr
    res = run_cli(["report", "--help"], dict(os.environ), str(tmp_path))
    assert "time budget" in res.stdout and "size limit" in res.stdout


def test_toolkit_latest_as_a_real_symlink_replays_the_same(tmp_path):
    machine = make_fake_machine(tmp_path / "m", latest_symlink=True)
    env = machine.environ(sourced=True)
    out = str(tmp_path / "r.tar.gz")
    assert run_cli(["report", "--out", out], env, str(tmp_path)).returncode == 0
    live = json.loads(run_cli(["status", "--json", "--details"], env, str(tmp_path)).stdout)
    replay = json.loads(run_cli(["status", "--json", "--from", out], env, str(tmp_path)).stdout)
    assert verdicts(replay) == verdicts(live)
    assert replay["versions"]["cann"] == "8.3.RC2"
    paths = json.load(open(os.path.join(extract(out, str(tmp_path / "x")), "machine/paths.json")))
    latest = [v for k, v in paths["paths"].items() if k.endswith("/ascend-toolkit/latest")]
    assert latest == [{"kind": "symlink", "target": "8.3.RC2"}]
