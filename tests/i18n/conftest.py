"""The jupyter_server fixtures (``jp_fetch`` …) of the server tests, for the status API test."""

from tests.server.conftest import *  # noqa: F401,F403
