#!/usr/bin/env bash
# The Python 3.9 leg of `make test`: the oldest MindSpore the registry offers for Python 3.9
# (2.7.0, which needs numpy<2), as on the Ascend notebook images, in its own venv. Runs every
# test that drives MindSpore's compiler (trace capture, pass timeline, fusion map, MindIR,
# memory plans), the numeric comparison's tests (tests/numerics: 56 passed on 2.7.0, with capture="dump", issue #30)
# and the course helper's tests. The IR fixtures' re-recording test is left
# out: its line numbers are 2.10's.
#   scripts/check_older_mindspore.sh VENV      (the Makefile's `py39` target builds VENV)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:?usage: $0 VENV (make py39 builds it)}"
"$venv/bin/python" -c "import mindspore, sys; print('MindSpore', mindspore.__version__, 'on Python', sys.version.split()[0])"
# shellcheck disable=SC2086 # XDIST_ARGS is a list of options (from the Makefile)
"$venv/bin/python" -m pytest ${XDIST_ARGS:-} -q -p no:cacheprovider tests/tracing tests/memory tests/numerics tests/course/test_command.py \
  tests/parsers/test_execution_order.py tests/parsers/test_op_dump_parse.py tests/results/test_no_kernel_graph.py \
  tests/analysis/test_lifetimes.py tests/analysis/test_planner.py
