"""Redaction by value in free text (issue #37): 33 secrets planted in a log, each in a
shape the earlier patterns missed (12 of 30 stayed in a bundle's log tail), and none may
reach the bundle; the compiler's names that look a little random must stay readable.

Key shapes follow each provider's published format; none is a live credential."""

import tarfile

from ascend_lab.report.redact import Redactor

from .conftest import run_cli

# (free text with {} where its secret stands, the secret): none is a live credential;
# shapes follow each provider's documented format.
PLANTED_AT = [
    ("export PGPASSWORD={}", "Qw7rTy91xZ"),
    ("mysql -u admin -p{} -h db", "S3cr3tPassw0rd"),
    ("login with --password {}", "Tr0ub4dor3x"),
    ("my password is {}", "CorrectHorse77"),
    ("DB_PASS={}", "ZebraCrossing55"),
    ("pwd: {}", "Kx8mN2pQ4r"),
    ("git clone https://{}@github.com/x/y", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf12"),
    ("token {}", "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"),
    (
        "using {}",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR",
    ),
    ("gitlab {}", "glpat-xY7zW9vU2tS4rQ6pO8nM"),
    ("slack {}", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("OPENAI {}", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90"),
    ("anthropic {}", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"),
    ("google key {}", "AIzaSyD4x7Qw9Er2Ty5Ui8Op1As3Df6Gh0Jk2Lm"),
    ("huggingface {}", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("stripe {}", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("npm token {}", "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"),
    ("jwt {}", "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhc2NlbmQifQ.Zm9vYmFyYmF6cXV4"),
    ("Server=db.internal;Database=ms;User Id=sa;Password={};", "Blu3Sky!Night"),
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
        "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8=",
    ),
    ("mongodb+srv://dbadmin:{}@cluster0.example.net/test", "M0ng0Pa55w0rd"),
    ("redis://:{}@cache:6379/0", "R3d1sS3cr3t"),
    (
        "-----BEGIN RSA PRIVATE KEY----- {} -----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA7x9Qw2Ert5Yui8Op0As2Df4Gh6Jk8Lz1Xc3Vb5Nm7",
    ),
    ("X-Auth-Token: {}", "MIIDkgYJKoZIhvcNAQcCoIIDgzCCA38CAQExDTALBglghkgBZQMEAgEw"),
    ("the key was {}", "q7Lm2Xv9Rt4Wz8Np3Ks6Bd1Hf5Gj0Yc"),
    ("secret: {}", "Ab9Cd8Ef7Gh6Ij5Kl4"),
    ("MODELSCOPE_API_TOKEN={}", "ms-7f3a9c2e-4b1d-4e8a-9c6f-2d5b8a1e3f7c"),
    ("OBS_SECRET_ACCESS_KEY={}", "Xy7Wv5Ut3Sr1Qp9On7Ml5Kj3Ih1Gf9Ed7Cb5Aa3Z"),
    ("curl -u alice:{} https://api.example.com", "Sup3rS3cretPw"),
    ("passphrase for key: {}", "Open-Sesame-2026"),
    ("wandb login {}", "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc"),
    ("HF_TOKEN {}", "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"),
    ("api key: {}", "5d41402abc4b2a76b9719d911017c592Xy"),
]
PLANTED = [(template.format(secret), secret) for template, secret in PLANTED_AT]

# What a log, a dump or a profile holds that is not a secret: compiler and kernel names
# (CamelCase with numbers, mangled C++), shapes, versions, a commit id.
KEPT = [
    "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0",
    "Fused_BiasAdd_ReLU_fusion_13071873052412478123",
    "kernel_graph0 ReLU Float32 (32, 64, 112, 112) NCHW Float32xDefaultFormat",
    "MindSpore 2.10.0 CANN 8.0.RC2 driver 24.1.RC2",
    "BatchMatMulV2 TransData DynamicQuantV2 ConvolutionBackpropFilter LpNormUpdateV2159",
    "DropOutDoMask100 MaxPoolGradWithArgmaxV1 _ZN5torch10ValueErrorC1EPKcz",
    "password_file_not_found warning: the password is required",
    "mindspore commit_id: 9e844dc65dc5ef4381574e8b6ec2f93f9681f720",
]


def _log() -> str:
    return "\n".join(line for line, _ in PLANTED) + "\n" + "\n".join(KEPT) + "\n"


def test_the_planted_set_is_thirty_or_more_distinct_secrets():
    values = [secret for _, secret in PLANTED]
    assert len(set(values)) == len(values) >= 30
    assert all(secret in line for line, secret in PLANTED)


def test_no_planted_secret_survives_and_names_stay():
    out = Redactor().redact(_log())
    assert [s for _, s in PLANTED if s in out] == []
    assert [k for k in KEPT if k not in out] == []


def test_a_secret_is_masked_wherever_it_appears_later():
    redactor = Redactor()
    redactor.learn(_log())  # learnt from the log, masked in another file of the bundle
    other = "retrying with Qw7rTy91xZ and q7Lm2Xv9Rt4Wz8Np3Ks6Bd1Hf5Gj0Yc"
    assert "Qw7rTy91xZ" not in redactor.redact(other)
    assert "q7Lm2Xv9Rt4Wz8Np3Ks6Bd1Hf5Gj0Yc" not in redactor.redact(other)


def test_no_planted_secret_reaches_the_bundle(planted_machine, tmp_path):
    _machine, env = planted_machine
    log = tmp_path / "train.log"
    log.write_text(_log(), encoding="utf-8")
    out = str(tmp_path / "r.tar.gz")
    made = run_cli(["report", "--out", out, "--log", str(log)], env, str(tmp_path))
    assert made.returncode == 0, made.stderr
    with tarfile.open(out) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    user_logs = [n for n in files if "/logs/user/" in n]
    assert user_logs, sorted(files)  # the log was collected, so the grep below saw it
    leaks = [
        (secret, name)
        for _, secret in PLANTED
        for name, data in files.items()
        if secret.encode() in data or secret in name
    ]
    assert leaks == []
    assert b"Float32xDefaultFormat" in files[user_logs[0]]
