"""Settings shared by every test: a non-interactive matplotlib, quiet progress output, and
a watch on MindSpore's AKG build servers (tests/support/akg_watch.py)."""

import os

pytest_plugins = ["tests.support.akg_watch"]

os.environ.setdefault("MPLBACKEND", "Agg")
# ascend-lab shows progress bars only for people; tests are not people.
os.environ.setdefault("ASCEND_LAB_QUIET", "1")
# messages in English whatever the developer's locale (tests/i18n sets the language itself)
os.environ.setdefault("ASCEND_LAB_LANG", "en")
