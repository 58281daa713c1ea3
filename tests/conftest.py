"""Settings shared by every test: a non-interactive matplotlib, quiet progress output, and
a watch on MindSpore's AKG build servers (tests/support/akg_watch.py), and no compiled-kernel
folder passed from one test to the children of the next."""

import os

import pytest

pytest_plugins = ["tests.support.akg_watch"]

os.environ.setdefault("MPLBACKEND", "Agg")
# ascend-lab shows progress bars only for people; tests are not people.
os.environ.setdefault("ASCEND_LAB_QUIET", "1")
# messages in English whatever the developer's locale (tests/i18n sets the language itself)
os.environ.setdefault("ASCEND_LAB_LANG", "en")

_KERNEL_CACHE_AT_START = os.environ.get("MS_COMPILER_CACHE_PATH")


@pytest.fixture(autouse=True)
def _no_inherited_kernel_cache():
    """A fusion trace points this worker's MS_COMPILER_CACHE_PATH at its private work folder
    (ascend_lab.capture.compile.share_kernel_cache): MindSpore has read it by then, so the
    variable is put back after each test. Kernels, servers and CLIs a later test starts then
    begin as a learner's do (their own folder), never with this worker's compiled kernels or
    a folder removed when the worker exits."""
    yield
    if _KERNEL_CACHE_AT_START is None:
        os.environ.pop("MS_COMPILER_CACHE_PATH", None)
    else:
        os.environ["MS_COMPILER_CACHE_PATH"] = _KERNEL_CACHE_AT_START


def pytest_collection_modifyitems(config, items):
    """``ASCEND_LAB_SWEEP_EVERY=N``: of the tests marked ``sweep`` (one per row of a data
    table: a rule's examples, a message template, a corpus case), keep every N-th. The
    Python 3.8 leg sets it: the code those rows run is the same for every row (and the
    knowledge loader compiles every pattern whichever rows run), so a sample checks 3.8
    while the main leg runs every row."""
    every = os.environ.get("ASCEND_LAB_SWEEP_EVERY", "")
    if not every.isdigit() or int(every) <= 1:
        return
    n, kept, dropped, seen = int(every), [], [], 0
    for item in items:
        if item.get_closest_marker("sweep") is None:
            kept.append(item)
            continue
        (kept if seen % n == 0 else dropped).append(item)
        seen += 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
