#!/usr/bin/env bash
# The separate check against an older MindSpore (default 2.7.0, which needs numpy<2): builds
# its own venv next to the main one and runs every test that drives MindSpore's compiler
# (trace capture, pass timeline, fusion map, MindIR, memory plans). CI runs 2.10 everywhere
# else. The IR fixtures' re-recording test is left out: its line numbers are 2.10's.
#   scripts/check_older_mindspore.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-2.7.0}"
venv=".venv-mindspore-${version}"
python="${PYTHON:-python3}"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e ".[test]" "mindspore==${version}" "numpy<2"
"$venv/bin/python" -c "import mindspore, sys; print('MindSpore', mindspore.__version__, 'on Python', sys.version.split()[0])"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/trace tests/memory
