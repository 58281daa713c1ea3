"""deploy/kubernetes/values.yaml against the Zero to JupyterHub chart's own schema
(tests/hub/z2jh: the chart's main branch; tests/hub/z2jh-4.4.0: the 4.4.0 release; both
copied from the chart's repository, see their READMEs), and what the hub does with it."""

import copy
import json
import os
import subprocess
import sys

import jsonschema
import pytest
import yaml

from benchmarks.support.lab import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OURS = os.path.join(REPO, "deploy", "kubernetes", "values.yaml")
Z2JH_4 = os.path.join(HERE, "z2jh-4.4.0")


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


@pytest.fixture(scope="module")
def merged_4():
    return helm_merge(_load(os.path.join(Z2JH_4, "values.yaml")), _load(OURS))


def test_our_values_pass_the_4_4_0_chart_schema(merged_4):
    jsonschema.validate(merged_4, _load(os.path.join(Z2JH_4, "values.schema.yaml")))


# Logins that let anyone in under any name: the chart's default "dummy" (any password) and
# JupyterHub's shared-password one (a shared password, no identity).
OPEN_LOGINS = {
    "dummy",
    "dummyauthenticator",
    "jupyterhub.auth.dummyauthenticator",
    "shared-password",
    "sharedpassword",
    "jupyterhub.authenticators.shared.sharedpasswordauthenticator",
    "null",
}


def _admins_anywhere(config):
    return {
        section: cfg["admin_users"]
        for section, cfg in config.items()
        if isinstance(cfg, dict) and cfg.get("admin_users")
    }


@pytest.mark.parametrize("chart", ["main", "4.4.0"])
def test_no_login_that_lets_anyone_in_or_grants_admin_is_shipped(chart, merged, merged_4):
    config = (merged if chart == "main" else merged_4)["hub"]["config"]
    login = config["JupyterHub"]["authenticator_class"]
    assert isinstance(login, str) and login.lower() not in OPEN_LOGINS, login
    assert "none chosen" in login and "README" in login  # it says what to do
    assert _admins_anywhere(config) == {}  # admins are named with the identity provider
    assert not any(isinstance(c, dict) and c.get("allow_all") for c in config.values())


_HUB_CONFIG = """
import json, sys
c = get_config()
values = json.loads({values!r})
# the "load hub.config values" block of the chart's own jupyterhub_config.py, run as is
namespace = {{"c": c, "sys": sys, "get_config": lambda key, default=None: values}}
exec(compile({block!r}, "z2jh-4.4.0/jupyterhub_config.py", "exec"), namespace)
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
# this hub must never serve: were the login accepted, it would stop here (no such proxy)
c.ConfigurableHTTPProxy.command = [{no_proxy!r}]
c.JupyterHub.db_url = "sqlite:///" + {db!r}
c.JupyterHub.cookie_secret_file = {secret!r}
"""


def _chart_block():
    with open(os.path.join(Z2JH_4, "jupyterhub_config.py.txt"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("# load hub.config values")
    end = text.index("# load /usr/local/etc/jupyterhub/jupyterhub_config.d")
    return text[start:end]


@pytest.mark.hub  # starts jupyterhub itself
def test_the_hub_refuses_to_start_until_a_login_is_chosen(tmp_path, merged_4):
    config = tmp_path / "jupyterhub_config.py"
    config.write_text(
        _HUB_CONFIG.format(
            values=json.dumps(merged_4["hub"]["config"]),
            block=_chart_block(),
            db=str(tmp_path / "hub.sqlite"),
            secret=str(tmp_path / "cookie_secret"),
            port=free_port(),
            hub_port=free_port(),
            proxy_port=free_port(),
            no_proxy=str(tmp_path / "no-such-proxy"),
        )
    )
    jupyterhub = os.path.join(os.path.dirname(sys.executable), "jupyterhub")
    done = subprocess.run(
        [jupyterhub, "-f", str(config)],
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=300,
    )
    out = done.stdout.decode("utf-8", "replace")
    assert done.returncode != 0, out[-2000:]
    assert "Loading pass-through config section hub.config.JupyterHub" in out
    assert "Bad config encountered during initialization" in out
    assert "none chosen: set hub.config.JupyterHub.authenticator_class" in out
    assert not (tmp_path / "hub.sqlite").exists()  # it stopped before doing anything


@pytest.mark.hub  # reads jupyterhub's own authenticator names
def test_the_chart_default_login_is_the_open_one_this_file_replaces(merged_4):
    from jupyterhub.app import JupyterHub

    defaults = _load(os.path.join(Z2JH_4, "values.yaml"))["hub"]["config"]["JupyterHub"]
    assert JupyterHub(authenticator_class=defaults["authenticator_class"]).authenticator_class
    assert defaults["authenticator_class"] == "dummy"  # what a values file without a login gets
