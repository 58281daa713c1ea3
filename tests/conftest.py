"""Settings shared by every test: a non-interactive matplotlib, quiet progress output."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
# ascend-lab shows progress bars only for people; tests are not people.
os.environ.setdefault("ASCEND_LAB_QUIET", "1")
# messages in English whatever the developer's locale (tests/i18n sets the language itself)
os.environ.setdefault("ASCEND_LAB_LANG", "en")
