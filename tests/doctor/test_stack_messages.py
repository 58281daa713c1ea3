"""The messages of the stacks around CANN (#36), read from their source by
scripts/stack_message_table.py (ggml-cann, PaddleCustomDevice's NPU plugin, dlinfer, LMDeploy,
xLLM, triton-ascend, ONNX Runtime's CANN execution provider; the Kubernetes and container side:
MindCluster's device plugin, Docker runtime, DCMI wrapper and Volcano plugin, HAMi, Volcano's
vNPU; DeepSpeed's NPU accelerator, Ray's and SGLang's NPU code): every template the review maps to a
topic is read with that topic once filled and printed as its stack prints it; no template left
unmapped is claimed by a rule written from these tables; no mapping is left without a template."""

import json
import re
from pathlib import Path

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics, load_entries
from tests.doctor.script_module import load_script

SCRIPT = load_script("stack_message_table")
ROWS = SCRIPT.read_table()
MAPPED_ROWS = [(SCRIPT.mapped_topic(r), r) for r in ROWS if SCRIPT.mapped_topic(r)]
UNMAPPED_ROWS = [r for r in ROWS if not SCRIPT.mapped_topic(r)]
# The rules written from these tables: an unmapped template must not be read by them.
TABLE_RULES = {
    "paddle-npu-kernel-unsupported",
    "paddle-npu-kernel-input-check",
    "ggml-cann-op-unsupported",
    "acl-malloc-call-failed",
    "triton-ascend-toolkit-env",
    "triton-ascend-not-installed",
    "aclnn-api-missing-in-opapi",
    "cann-build-env-missing",
    "atb-comm-param-invalid",
    "atb-operation-unsupported",
    "atb-operation-check",
    "atb-operation-failed",
    "atb-operation-param-invalid",
    "atb-operation-out-of-memory",
    "atb-aclnn-function-missing",
    "ascend-docker-hook-path-check",
    "dcmi-init-failed",
    "ascend-visible-devices-invalid",
    "npu-hot-reset-failed",
}


def test_the_tables_record_where_they_were_read():
    for path in (SCRIPT.TABLE, SCRIPT.BY_HAND):
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        assert data["snapshots"], path
        for snap in data["snapshots"]:
            assert re.fullmatch(r"[0-9a-f]{40}", snap["commit"]), snap
            assert snap["repo"] and snap["stack"], snap
    stacks = {s for s, *_ in SCRIPT.STACKS} | set(SCRIPT.BY_HAND_STACKS)
    for row in ROWS:
        assert row["stack"] in stacks, row
        assert re.search(r"[A-Za-z]{3}", row["template"]), row
        assert row["file"] and row["macro"], row


def test_every_mapping_names_a_known_topic_and_finds_a_template():
    topics = known_topics()
    for m in SCRIPT.MAPPED:
        assert m["topic"] in topics or (m["topic"] == "" and m.get("why")), m
        probe = dict(m, topic=m["topic"] or "left-unclaimed")
        assert any(SCRIPT.mapped_topic(r, [probe]) for r in ROWS), (
            f"mapping {m} matches no template"
        )


def test_a_template_is_printed_as_its_stack_prints_it():
    paddle = {
        "stack": "paddle-npu",
        "macro": "PADDLE_ENFORCE_EQ:InvalidArgument",
        "template": "The axis is expected to be in range of [{}, {}), but got {}",
        "file": "backends/npu/kernels/concat_kernel.cc",
        "repo": "PaddlePaddle/PaddleCustomDevice",
    }
    text = SCRIPT.message(paddle)
    assert text.startswith("ValueError: (InvalidArgument) The axis is expected")
    assert "(at /workspace/PaddleCustomDevice/backends/npu/kernels/concat_kernel.cc:" in text
    ggml = dict(paddle, stack="ggml-cann", macro="GGML_ABORT", template="unsupported tri type")
    ggml.update(file="src/ggml-cann/aclnn_ops.cpp", repo="ggml-org/ggml")
    assert re.fullmatch(
        r"/\S+/ggml-cann/aclnn_ops\.cpp:\d+: unsupported tri type", SCRIPT.message(ggml)
    )
    call = dict(ggml, macro="ACL_CHECK")
    call["template"] = (
        "CANN error: {}\n  current device: {}, in function {} at {}:{}\n  aclrtFree(ptr)"
    )
    assert SCRIPT.message(call).startswith("CANN error: (null)\n  current device: 0, in function ")


@pytest.mark.sweep
@pytest.mark.parametrize(
    "topic, row",
    MAPPED_ROWS,
    ids=lambda v: str(v.get("template") if isinstance(v, dict) else v)[:60],
)
def test_a_mapped_template_is_read_with_its_topic(topic, row):
    text = SCRIPT.message(row)
    diag = diagnose(text)
    assert diag.findings, f"nothing recognised in {text!r}"
    assert diag.findings[0].topics[:1] == (topic,), (text, diag.findings[0].entry.id)


def test_no_unmapped_template_is_claimed_by_the_rules_written_from_the_tables():
    # A rule claims a text when one of its patterns matches it (a finding, at any rank); the
    # patterns are searched directly, which is what the doctor does, without ranking the rest.
    rules = [e for e in load_entries() if e.id in TABLE_RULES]
    assert {e.id for e in rules} == TABLE_RULES
    claimed = []
    for row in UNMAPPED_ROWS:
        text = SCRIPT.message(row)
        for entry in rules:
            if any(p.search(text) for p in entry.patterns):
                claimed.append((entry.id, row["stack"], row["template"][:80]))
    assert not claimed, claimed
