#!/usr/bin/env bash
# Rebuild the Binder environment in a fresh virtual environment, following binder/postBuild,
# then run notebook 0 with the registered `mindspore` kernel.
#
#   scripts/binder_check.sh [WORKDIR]
#
# Steps (the same as binder/postBuild, which repo2docker runs after creating its env):
#   1. copy the source tree (tracked + untracked, not ignored files) to WORKDIR/src, so no
#      build output lands in the checkout;
#   2. python -m venv WORKDIR/venv;
#   3. pip install --no-cache-dir ".[lab,mindspore]"  (non-editable: the wheel build hook builds
#      the JupyterLab extension with jlpm);
#   4. ascend-lab install-kernel --sys-prefix; the course's server settings
#      (install_course_settings); jupyter labextension list / server extension list;
#   5. jupyter nbconvert --execute notebooks/00_*.ipynb with the `mindspore` kernel.
# Jupyter's per-user folders point into WORKDIR, so nothing is written to $HOME and a user's
# own kernels cannot shadow the one under test. Takes several minutes (downloads MindSpore).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$(mktemp -d -t binder-check-XXXXXX)}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
SRC="$WORK/src"
VENV="$WORK/venv"
OUT="$WORK/out"

export JUPYTER_DATA_DIR="$WORK/jupyter/data"
export JUPYTER_CONFIG_DIR="$WORK/jupyter/config"
export JUPYTER_RUNTIME_DIR="$WORK/jupyter/runtime"
export IPYTHONDIR="$WORK/ipython"
export MPLCONFIGDIR="$WORK/mpl"
unset JUPYTER_PATH PYTHONPATH MPLBACKEND VIRTUAL_ENV || true

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
started=$(date +%s)

step "copy the source tree to $SRC"
mkdir -p "$SRC" "$OUT"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$SRC"

step "fresh virtual environment ($("$PYTHON" --version 2>&1))"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip

step "binder/postBuild: pip install \".[lab,mindspore]\" (non-editable, builds the lab extension)"
(cd "$SRC" && PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pip install --no-cache-dir ".[lab,mindspore]")

step "binder/postBuild: ascend-lab install-kernel --sys-prefix"
PATH="$VENV/bin:$PATH" "$VENV/bin/ascend-lab" install-kernel --sys-prefix
"$VENV/bin/python" -c "import sys; from ascend_lab.course.command import install_course_settings as i; print(*i(sys.prefix))"
"$VENV/bin/jupyter" kernelspec list
"$VENV/bin/jupyter" labextension list 2>&1
"$VENV/bin/jupyter" server extension list 2>&1

step "run notebook 0 with the registered mindspore kernel"
(cd "$SRC/notebooks" && PATH="$VENV/bin:$PATH" "$VENV/bin/jupyter" nbconvert --to notebook \
    --execute --ExecutePreprocessor.kernel_name=mindspore --ExecutePreprocessor.timeout=600 \
    --output-dir "$OUT" 00_stack_and_machine.ipynb)

step "check the executed notebook"
"$VENV/bin/python" - "$OUT/00_stack_and_machine.ipynb" "$VENV" <<'PY'
import os, sys
import nbformat

path, venv = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, as_version=4)
text = []
for cell in nb.cells:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            sys.exit(f"error in a cell: {out.get('ename')}: {out.get('evalue')}")
        text.append(str(out.get("text", "")) + str(out.get("data", {}).get("text/plain", "")))
text = "\n".join(text)
assert nb.metadata.kernelspec.name == "mindspore", nb.metadata.kernelspec
assert "this kernel runs: " + os.path.join(venv, "bin") in text, "not the venv's mindspore kernel"
assert "'mindspore' kernel registered: True" in text
# as shipped, the exercises are blanks: both self-checks run and say so (no \u2713, no \u2717)
assert text.count("not answered yet") >= 2, "the self-checks did not run"
assert "\u2717" not in text, "a self-check failed on a blank"
print("notebook 0 ran on the mindspore kernel of", venv)
PY

step "binder check passed in $(( $(date +%s) - started )) s (work folder: $WORK)"
