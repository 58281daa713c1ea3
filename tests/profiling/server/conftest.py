"""The server-extension fixtures (``jp_fetch`` …), shared with tests/server."""

from tests.server.conftest import *  # noqa: F401,F403
