import sys

# Model Explorer (ai-edge-model-explorer) is installed on Python >= 3.10 only (pyproject's
# `test` and `model-explorer` extras): the Python 3.8 and 3.9 legs test the pure converter.
collect_ignore = (
    [] if sys.version_info >= (3, 10) else ["test_adapter.py", "test_server_browser.py"]
)
