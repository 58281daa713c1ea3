"""Runs the ``async def`` tests of this folder (the server cases of
``test_viewer_hostile.py``) on jupyter_server's event loop, as tests/server does; every
other test runs as pytest runs it."""

import inspect

import pytest
from pytest_jupyter import jupyter_server


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    return jupyter_server.pytest_pycollect_makeitem(collector, name, obj)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None  # pytest's own call
    return jupyter_server.pytest_pyfunc_call(pyfuncitem)
