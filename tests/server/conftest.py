"""jupyter_server test fixtures (``jp_fetch`` …) for the server-extension tests only."""

import pytest
from pytest_jupyter.jupyter_server import *  # noqa: F401,F403


@pytest.fixture
def jp_base_url():
    # as under JupyterHub: every URL must be built from the base URL
    return "/user/alice/"


@pytest.fixture
def ascend_lab_config():
    """Per-test overrides of ``AscendLabServerConfig``."""
    return {}


@pytest.fixture
def jp_server_config(ascend_lab_config):
    return {
        "ServerApp": {"jpserver_extensions": {"ascend_lab.server": True}},
        "AscendLabServerConfig": dict(ascend_lab_config),
    }
