"""deploy/kubernetes/values.yaml against the Zero to JupyterHub chart's own schema
(tests/hub/z2jh: copied from the chart's repository, see its README)."""

import copy
import os

import jsonschema
import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OURS = os.path.join(REPO, "deploy", "kubernetes", "values.yaml")


def _load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def helm_merge(defaults, values):
    """Helm's merge of user values over chart defaults: maps merge, anything else replaces,
    null deletes."""
    out = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = helm_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@pytest.fixture(scope="module")
def schema():
    return _load(os.path.join(HERE, "z2jh", "values.schema.yaml"))


@pytest.fixture(scope="module")
def merged():
    return helm_merge(_load(os.path.join(HERE, "z2jh", "values.yaml")), _load(OURS))


def test_our_values_pass_the_chart_schema(schema, merged):
    jsonschema.validate(merged, schema)


def test_the_schema_check_catches_a_misspelt_key(schema, merged):
    bad = copy.deepcopy(merged)
    bad["singleuser"]["profilelist"] = bad["singleuser"].pop("profileList")
    with pytest.raises(jsonschema.ValidationError, match="profilelist"):
        jsonschema.validate(bad, schema)


def test_profiles_one_npu_and_cpu_only(merged):
    profiles = {p["slug"]: p["kubespawner_override"] for p in merged["singleuser"]["profileList"]}
    assert profiles["npu-1"]["extra_resource_limits"] == {"huawei.com/Ascend910": "1"}
    assert "extra_resource_limits" not in profiles["cpu"]
    assert profiles["cpu"]["environment"]["ASCEND_LAB_CPU_REASON"]
    assert merged["cull"]["enabled"] is True and merged["cull"]["timeout"] == 3600
