"""Redaction by value (issue #24, findings 3 and 14): credentials, IPv6, ids and the paths
the name-based redactor missed, planted on the fake machine and grepped for in every member
of the archive ``ascend-lab report`` writes."""

import json
import os
import tarfile

from ascend_lab.report.redact import Redactor

from .conftest import run_cli

# Every value here must be absent from a redacted bundle. Key shapes follow the providers'
# documented formats (AWS's own documentation example key id; Huawei Cloud AK: 20
# upper-case letters and digits, SK: 40 letters and digits); none is a live credential.
SET_ENV_SECRETS = {
    "set_env comment": "# OBS bucket for the course data, keep private",
    "set_env AK": "HPUAL3JQ8ZKX2MWR5T9Y",
    "set_env SK": "q8ZrT3mK9vL2xN7pW4sB6yD1fH5jG0cA8eU3iO2k",
    "proxy user": "proxyuser",
    "proxy password": "Pr0xyPassw0rd",
    "mirror user": "mirroruser",
    "mirror password": "M1rrorPw",
}
ENV_SECRETS = {
    "env URL user": "envuser",
    "env URL password": "EnvPassw0rd9",
    "env IPv6": "fd12:3456:789a:1::17",
}
LOG_SECRETS = {
    "token=": "tok_4f9a8b7c6d5e",
    "password=": "Hunter2Secret",
    "short password": "pw42",
    "Authorization": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
    "AWS key id": "AKIAIOSFODNN7EXAMPLE",
    "OBS AK by shape": "HPUBX4KQ9ZLY3NWS6U8T",
    "OBS SK by shape": "Zq9wX2eR4tY6uI8oP0aS1dF3gH5jK7lZ9xC2vB4n",
    "log IPv6": "fe80::1c2d:3e4f:5a6b:7c8d",
    "IPv4 on a version line": "10.77.66.55",
    "IPv4 in a version-named key": "10.66.55.44",
    "VDie id (JSON)": "3A7F9C21 5B8D0E44",
    "NDie id (JSON)": "NDIE5566AB",
    "serial (JSON)": "SNJSON778899",
    "node id": "worker-node-a17",
    "host name field": "trainhost-b42",
    "file:/// URL user": "fileurluser",
    "home with a space": "Spaceuser",
}


def plant_secrets(machine, env, tmp_path):
    set_env = os.path.join(machine.root, "ascend-toolkit", "set_env.sh")
    with open(set_env, "a", encoding="utf-8") as f:
        f.write(
            f"\n{SET_ENV_SECRETS['set_env comment']}\n"
            f"export HUAWEICLOUD_SDK_AK={SET_ENV_SECRETS['set_env AK']}\n"
            f"export HUAWEICLOUD_SDK_SK={SET_ENV_SECRETS['set_env SK']}\n"
            "export https_proxy=http://proxyuser:Pr0xyPassw0rd@proxy.example.com:3128\n"
            "export ASCEND_LAB_MIRROR=https://mirroruser:M1rrorPw@mirror.example.com/simple\n"
        )
    env = dict(
        env,
        MS_DEV_MIRROR="https://envuser:EnvPassw0rd9@pypi.example.com/simple",
        HCCL_IF_IP=ENV_SECRETS["env IPv6"],
    )
    board = {
        "VDie ID": LOG_SECRETS["VDie id (JSON)"],
        "NDie ID": LOG_SECRETS["NDie id (JSON)"],
        "serial_number": LOG_SECRETS["serial (JSON)"],
    }
    log = tmp_path / "job.log"
    log.write_text(
        "start: token=tok_4f9a8b7c6d5e user ok\n"
        "db login password=Hunter2Secret; then passwd: pw42\n"
        "GET /v1 Authorization: Bearer " + LOG_SECRETS["Authorization"] + "\n"
        "aws AKIAIOSFODNN7EXAMPLE, obs ak HPUBX4KQ9ZLY3NWS6U8T sk "
        + LOG_SECRETS["OBS SK by shape"]
        + "\n"
        "hccl peer [fe80::1c2d:3e4f:5a6b:7c8d%eth0]:29500 and ::1 local\n"
        "Version=24.1.0.3 mirror 10.77.66.55\n"
        "package_version_mirror=10.66.55.44\n"
        + json.dumps(board, indent=2)
        + "\n"
        + json.dumps({LOG_SECRETS["serial (JSON)"]: {"temp": 41}})
        + "\n"
        + json.dumps({"node_id": "worker-node-a17", "hostname": "trainhost-b42", "rank": 3})
        + "\n"
        "source file:///home/fileurluser/project/train.py\n"
        "ckpt at /home/Ann Spaceuser/ckpt/step_100.ckpt\n",
        encoding="utf-8",
    )
    return env, str(log)


def members(archive):
    """Every member of the archive, decompressed, by name."""
    with tarfile.open(archive) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}


def test_no_planted_secret_of_any_kind_is_anywhere_in_the_bundle(planted_machine, tmp_path):
    machine, env = planted_machine
    env, log = plant_secrets(machine, env, tmp_path)
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(["report", "--out", out, "--log", log], env, str(tmp_path))
    assert made.returncode == 0, made.stderr
    files = members(out)
    secrets = {**SET_ENV_SECRETS, **ENV_SECRETS, **LOG_SECRETS}
    leaks = [
        (kind, name)
        for kind, value in secrets.items()
        for name, data in files.items()
        if value.encode() in data or value in name
    ]
    assert leaks == []
    # the planted places were collected, so the grep above looked at them
    top = "ascend-lab-report/"
    log_text = next(d for n, d in files.items() if n.startswith(top + "logs/user/")).decode()
    assert "Version=24.1.0.3 mirror <ip-" in log_text  # the version stays, the address goes
    assert "Authorization: Bearer <secret-" in log_text and "<ip-" in log_text
    assert "::1 local" in log_text  # loopback is not an identity
    environment = json.loads(files[top + "machine/environment.json"])
    assert environment["HCCL_IF_IP"].startswith("<ip-")
    assert environment["MS_DEV_MIRROR"].startswith("https://<secret-")
    set_env = json.loads(files[top + "machine/set_env.json"])
    assert "HUAWEICLOUD_SDK_AK" in set_env["not_recorded"]
    assert set_env["sets"]["ASCEND_LAB_MIRROR"].startswith("https://<secret-")
    paths = json.loads(files[top + "machine/paths.json"])["paths"]
    set_env_entries = [v for k, v in paths.items() if k.endswith("/set_env.sh")]
    assert set_env_entries and all("text" not in v for v in set_env_entries)
    manifest = json.loads(files[top + "manifest.json"])
    # token, two passwords, bearer, AWS id, OBS AK and SK, two URL user infos (set_env's
    # AK/SK and proxy are not recorded at all)
    assert manifest["redactions"]["secret"]["distinct"] >= 9
    text = files[top + "MANIFEST.txt"].decode()
    assert "NOT redacted:" in text and "set_env.sh: only its path" in text
    assert "secret:" in text and "<secret-" not in text.split("Collected:")[0]  # counts intact
    assert "password=/token=/secret=" in text
    # and the bundle still replays
    assert run_cli(["status", "--from", out], env, str(tmp_path)).returncode == 0


def test_versions_stay_and_addresses_go_on_version_lines():
    r = Redactor()
    out = r.redact(
        "Version=24.1.0.3\n"
        '  "driver": "24.1.0.3",\n'
        "Version=24.1.0.3 peer 10.1.2.3\n"
        "version_server=10.2.3.4\n"
    )
    assert out.count("24.1.0.3") == 3
    assert "10.1.2.3" not in out and "10.2.3.4" not in out


def test_ipv6_is_redacted_but_not_words_times_or_loopback():
    r = Redactor()
    text = (
        "std::vector at 12:30:45.123, ::1 and :: here, y = x[0::2]; link fe80::1 and "
        "peer 2001:db8::8a2e:370:7334.\n"
    )
    out = r.redact(text)
    assert "2001:db8::8a2e:370:7334" not in out and out.endswith("<ip-2>.\n")
    assert "link <ip-1> and" in out
    assert "std::vector" in out and "12:30:45.123" in out and "::1 and :: here" in out
    assert "x[0::2]" in out  # a slice in a traceback, not an address


def test_a_credential_found_in_one_file_is_replaced_in_every_file():
    r = Redactor()
    r.learn("OBS_SECRET=Wq7v9Zt2Lk\n")
    assert r.redact("copied Wq7v9Zt2Lk into the notebook") == "copied <secret-1> into the notebook"


def test_chip_indexes_are_not_serials():
    r = Redactor()
    out = r.redact("Chip ID : 1\nNPU 1 is fine, 1 chip\n")
    assert out == "Chip ID : 1\nNPU 1 is fine, 1 chip\n"
