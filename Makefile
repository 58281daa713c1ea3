# The two front-door commands (see README.md):
#   make course   set everything up and open the course in JupyterLab (CPU mode unless an NPU is present)
#   make test     set everything up (incl. Debian's chromium for browser tests) and run every check and test
#
# Everything lives in ./.venv; nothing is installed into the system Python.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ascend-lab-installed

# Tools the recipes call (jlpm, jupyter-builder, node helpers) come from the venv first.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: course test lint pytest older-mindspore browser-deps clean help

help:
	@echo "make course  - set up and open the course in JupyterLab"
	@echo "make test    - set up and run all checks and tests"

$(STAMP): pyproject.toml labextension/package.json labextension/yarn.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[test]"
	$(BIN)/jupyter labextension develop --overwrite .
	@touch $@

course: $(STAMP)
	$(BIN)/ascend-lab course

# Browser tests drive Debian's chromium through Playwright (`playwright install` cannot download here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "Browser tests need Debian's chromium: sudo apt-get install -y chromium"; exit 1; fi; }

lint: $(STAMP)
	$(BIN)/ruff check ascend_lab tests benchmarks scripts
	$(BIN)/ruff format --check ascend_lab tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/vermin --no-tips --eval-annotations --feature union-types --target=3.8- --violations ascend_lab
	cd labextension && ../$(BIN)/jlpm lint

pytest: $(STAMP) browser-deps
	cd labextension && ../$(BIN)/jlpm test
	$(BIN)/python -m pytest

# The trace and memory tests again, against an older MindSpore (its own venv).
older-mindspore: $(STAMP)
	scripts/check_older_mindspore.sh 2.7.0

test: lint pytest older-mindspore

clean:
	rm -rf $(VENV) .venv-mindspore-* labextension/node_modules labextension/lib ascend_lab/labextension ascend_lab/static
