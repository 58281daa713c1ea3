"""The synthetic payloads used by the viewer tests are valid against the schema."""

import jsonschema
import pytest

from benchmarks.support.payloads import big_payload, course_payload, resnet_like_payload, validate


def test_course_payload_is_valid():
    payload = course_payload()
    validate(payload)
    assert payload["fusion"]["kernels"][0]["originals"] == ["2", "4"]
    assert [n["op"] for n in payload["graphs"]["after"]["nodes"]].count("Return") == 1


def test_big_payload_is_valid_and_nested():
    payload = big_payload(10000)
    validate(payload)
    nodes = payload["graphs"]["main"]["nodes"]
    assert len(nodes) == 10000
    scopes = {n["scope"] for n in nodes if n["scope"]}
    assert "Default/layer3-SequentialCell/4-Bottleneck/unit0-Conv2d" in scopes
    assert sum(1 for n in nodes if n["bookkeeping"]) == 999


def test_resnet_like_payload_has_about_500_nodes():
    payload = resnet_like_payload()
    validate(payload)
    assert 480 <= len(payload["graphs"]["main"]["nodes"]) <= 520


def test_validate_rejects_a_broken_payload():
    payload = course_payload()
    del payload["graphs"]["after"]["nodes"][0]["op"]
    with pytest.raises(jsonschema.ValidationError):
        validate(payload)
