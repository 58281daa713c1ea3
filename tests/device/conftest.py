import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:  # tests run from a clean clone without `pip install -e .`
    sys.path.insert(0, REPO)

from ascend_lab.probes import device as probe  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_status_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()
