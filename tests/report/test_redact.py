"""The redactor alone: tokens are consistent, addresses found, versions and loopback kept."""

from ascend_lab.report.redact import NoRedaction, Redactor


def test_same_value_same_token_across_texts():
    r = Redactor(hosts=["gpu-node-17.lab.example"], users=["alice"], homes=["/home/alice"])
    a = r.redact("alice@gpu-node-17 ran /home/alice/train.py on gpu-node-17.lab.example")
    b = r.redact("cwd=/home/alice/x user=alice")
    assert a == "<user-1>@<host-2> ran /<home-1>/train.py on <host-1>"
    assert b == "cwd=/<home-1>/x user=<user-1>"
    assert r.summary()["home"] == {"distinct": 1, "replaced": 2}


def test_serials_learnt_from_npu_smi_board_view_are_replaced_everywhere():
    board = "NPU ID      : 0\nSerial Number       : 033GWR10M8000050\nChip Count : 1\n"
    r = Redactor()
    r.learn(board)
    later = r.redact("device 033GWR10M8000050 reported an error")
    assert "033GWR10M8000050" not in later and "<serial-1>" in later
    assert "Serial Number       : <serial-1>" in r.redact(board)
    assert "NPU ID      : 0" in r.redact(board)


def test_ipv4_redacted_but_versions_and_loopback_kept():
    r = Redactor()
    text = (
        "Version=24.1.0.3\nfirmware 7.1.0.11.220\nMASTER_ADDR=192.168.3.40\n"
        "listen 127.0.0.1 and 0.0.0.0; peer 192.168.3.40:8000; bad 300.1.1.1\n"
    )
    out = r.redact(text)
    assert "Version=24.1.0.3" in out
    assert "7.1.0.11.220" in out
    assert "192.168.3.40" not in out and out.count("<ip-1>") == 2
    assert "127.0.0.1" in out and "0.0.0.0" in out and "300.1.1.1" in out


def test_home_of_another_user_and_mac_are_redacted():
    r = Redactor()
    out = r.redact("/home/bob/.cache and eth0 aa:bb:cc:dd:ee:0f")
    assert "bob" not in out and "aa:bb:cc:dd:ee:0f" not in out
    assert "<mac-1>" in out


def test_names_are_whole_words_and_root_is_not_a_secret():
    r = Redactor(users=["ma", "root"], hosts=["vm"])
    out = r.redact("mindspore on vm_8513_ascend_ms as root; ma runs")
    assert out == "mindspore on <host-1>_8513_ascend_ms as root; <user-1> runs"


def test_no_redaction_passes_text_through():
    r = NoRedaction(hosts=["myhost"])
    assert r.redact("myhost 10.1.2.3") == "myhost 10.1.2.3"


def test_binary_files_keep_their_length_and_lose_the_secrets():
    r = Redactor(users=["alice"], homes=["/home/alice"])
    data = b"\x0a\x19/home/alice/lib/net.py:12\x12\x05alice"
    out = r.redact_bytes(data)
    assert len(out) == len(data) and b"alice" not in out
    assert out.startswith(b"\x0a\x19***********/lib/net.py")
    assert r.summary()["user"]["replaced"] == 1 and r.summary()["home"]["replaced"] == 1
