# The two front-door commands (see README.md):
#   make course   set everything up and open the course in JupyterLab (CPU mode unless an NPU is present)
#   make test     set everything up (incl. Debian's chromium for browser tests) and run every check and test
#
# Everything lives in ./.venv* folders; nothing is installed into the system Python.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ascend-lab-installed

# The Python versions of the Ascend notebook images (Python 3.8/3.9, older MindSpore). On this
# machine image they live under pyenv; elsewhere: `pyenv install 3.8.18 3.9.18`.
PY38 ?= $(HOME)/.pyenv/versions/3.8.18/bin/python3.8
PY39 ?= $(HOME)/.pyenv/versions/3.9.18/bin/python3.9
# The oldest MindSpore the registry offers for Python 3.9.
OLDEST_MINDSPORE ?= 2.7.0
PY38_VENV := .venv-py38
PY39_VENV := .venv-py39-mindspore-$(OLDEST_MINDSPORE)
# Wheels (built once, here, with the network) for the wheel-install tests, which must not
# download anything: JupyterLab 4 and JupyterLab 3.6 with their dependencies, for Python 3.8.
WHEELHOUSE := .wheelhouse-py38

# Tools the recipes call (jlpm, jupyter-builder, node helpers) come from the venv first.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: course test setup lint pytest hub-deps py38 py39 older-mindspore wheel wheel-test browser-deps clean help

help:
	@echo "make course  - set up and open the course in JupyterLab"
	@echo "make test    - set up and run all checks and tests (incl. the Python 3.8 / 3.9 legs)"
	@echo "make wheel   - build dist/ascend_lab-*.whl from a clean production build of the extension"

# The learner's venv (`make course`) gets JupyterLab and MindSpore, not the test tooling;
# `make test` adds the `test` extra to the same venv (and then counts as a course install too).
COURSE_STAMP := $(VENV)/.ascend-lab-course-installed

$(COURSE_STAMP): pyproject.toml labextension/package.json labextension/yarn.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[lab,mindspore]"
	$(BIN)/jupyter labextension develop --overwrite .
	@touch $@

$(STAMP): pyproject.toml labextension/package.json labextension/yarn.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[lab,mindspore,test]"
	$(BIN)/jupyter labextension develop --overwrite .
	@touch $@ $(COURSE_STAMP)

# Opens the learner's own copy of the course (~/ascend-lab-course; COURSE_DIR=... for another
# folder), never the repository's notebooks/: autosave must not rewrite tracked files.
course: $(COURSE_STAMP)
	$(BIN)/ascend-lab course $(if $(COURSE_DIR),--dir "$(COURSE_DIR)")

# Browser tests drive Debian's chromium through Playwright (`playwright install` cannot download here).
# A CJK font, so screenshots of the Chinese edition and the zh_CN UI show characters, not boxes.
browser-deps:
	@{ command -v chromium >/dev/null 2>&1 && dpkg -s fonts-wqy-microhei >/dev/null 2>&1; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei; \
	  else echo "Browser tests need Debian's chromium and a CJK font: sudo apt-get install -y chromium fonts-wqy-microhei"; exit 1; fi; }

# mypy runs in the Python 3.8 venv: it checks for 3.8 against the dependencies 3.8 gets.
lint: $(STAMP) $(PY38_VENV)/.installed
	$(BIN)/ruff check ascend_lab tests benchmarks scripts
	$(BIN)/ruff format --check ascend_lab tests benchmarks scripts
	$(BIN)/ruff check notebooks
	$(PY38_VENV)/bin/mypy
	$(BIN)/vermin --no-tips --eval-annotations --feature union-types --target=3.8- --violations ascend_lab
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/python scripts/settings_table.py --check
	cd labextension && ../$(BIN)/jlpm lint

# The main suite (Python of .venv, current MindSpore). The wheel-install tests run in `wheel-test`.
# The JupyterHub class test needs jupyterhub (PyPI) and configurable-http-proxy (npm).
hub-deps: $(STAMP)
	sh scripts/hub_deps.sh

# The suite runs on every core (pytest-xdist). worksteal, not loadfile: the course file alone
# (every notebook, twice) would keep one worker busy while the other idles; a module fixture
# is made at most once per worker. XDIST=0 runs it serially.
XDIST ?= auto
XDIST_ARGS = $(if $(filter 0,$(XDIST)),,-n $(XDIST) --dist worksteal)

pytest: $(STAMP) browser-deps hub-deps
	cd labextension && ../$(BIN)/jlpm test
	$(BIN)/python -m pytest $(XDIST_ARGS) --durations=20 -m "not packaging"

# A leg needs its interpreter: say how to get it; in CI (CI=1) a missing one fails the build.
define need_python
	@if [ ! -x "$(1)" ]; then \
	  echo "*** $(1) is missing: the $(2) leg needs it. Get it with: pyenv install $(3)"; \
	  if [ -n "$$CI" ]; then exit 1; fi; \
	  echo "*** skipping the $(2) leg (it is required in CI)"; exit 0; fi
endef

# Python 3.8 (the Ascend images' oldest), no MindSpore: everything that does not need it. Test
# modules that import MindSpore at the top are named test_*_mindspore.py and are all
# `mindspore`-marked: they are left out rather than collected. Of the `sweep` tests (one per row
# of a data table: rules, message templates, codes) it runs every 20th: a sample of the
# tables' rows is exercised on 3.8, and the main leg runs every row (the fresh-clone CI at
# 9c6fd57 took about 28 min; this keeps it nearer 25).
# The adversarial every-pattern test (about a minute) runs in the main leg only: the patterns
# compile on 3.8 in the knowledge tests, and their run time is the engine's, not the version's.
$(PY38_VENV)/.installed: pyproject.toml
	@test -x "$(PY38)" || { echo "$(PY38) is missing: pyenv install 3.8.18"; exit 1; }
	@test -x $(PY38_VENV)/bin/python || "$(PY38)" -m venv $(PY38_VENV)
	$(PY38_VENV)/bin/python -m pip install -q --upgrade pip
	SKIP_JUPYTER_BUILDER=1 $(PY38_VENV)/bin/python -m pip install -q -e ".[lab,test]"
	@touch $@

py38: $(STAMP)
	$(call need_python,$(PY38),Python 3.8,3.8.18)
	@if [ -x "$(PY38)" ]; then $(MAKE) --no-print-directory $(PY38_VENV)/.installed && \
	  ASCEND_LAB_SWEEP_EVERY=20 $(PY38_VENV)/bin/python -m pytest $(XDIST_ARGS) -q -p no:cacheprovider -m "not mindspore and not browser and not packaging and not hub" \
	    --ignore-glob='*_mindspore.py' \
	    --deselect tests/hostile/test_doctor_hostile.py::test_every_pattern_on_quarter_megabyte_adversarial_inputs \
	    tests; fi

# Python 3.9 with the oldest MindSpore for it: the trace, memory and course-helper tests.
$(PY39_VENV)/.installed: pyproject.toml
	@test -x "$(PY39)" || { echo "$(PY39) is missing: pyenv install 3.9.18"; exit 1; }
	@test -x $(PY39_VENV)/bin/python || "$(PY39)" -m venv $(PY39_VENV)
	$(PY39_VENV)/bin/python -m pip install -q --upgrade pip
	SKIP_JUPYTER_BUILDER=1 $(PY39_VENV)/bin/python -m pip install -q -e ".[lab,mindspore,test]" \
	  "mindspore==$(OLDEST_MINDSPORE)" "numpy<2"
	@touch $@

py39: $(STAMP)
	$(call need_python,$(PY39),Python 3.9,3.9.18)
	@if [ -x "$(PY39)" ]; then $(MAKE) --no-print-directory $(PY39_VENV)/.installed && \
	  XDIST_ARGS="$(XDIST_ARGS)" scripts/check_older_mindspore.sh $(PY39_VENV); fi

older-mindspore: py39

# A release wheel: the build hook always runs `jlpm build:prod` (which starts with `jlpm clean`).
wheel: $(STAMP)
	rm -rf dist
	$(BIN)/python -m pip wheel --no-deps --wheel-dir dist .

$(WHEELHOUSE)/.complete: pyproject.toml
	@test -x "$(PY38)" || { echo "$(PY38) is missing: pyenv install 3.8.18"; exit 1; }
	@test -x .venv-wheelhouse/bin/python || "$(PY38)" -m venv .venv-wheelhouse
	.venv-wheelhouse/bin/python -m pip install -q --upgrade pip
	.venv-wheelhouse/bin/python -m pip wheel -q --wheel-dir $(WHEELHOUSE) \
	  "jupyterlab>=4.0,<5" "jupyter_server>=2.0" ipykernel ipywidgets anywidget matplotlib networkx
	.venv-wheelhouse/bin/python -m pip wheel -q --wheel-dir $(WHEELHOUSE) \
	  "jupyterlab==3.6.*" "jupyter_server<2" ipykernel ipywidgets anywidget matplotlib networkx
	@touch $@

# Installs dist/*.whl into fresh Python 3.8 venvs (no Node on PATH, nothing downloaded).
wheel-test: wheel
	$(call need_python,$(PY38),wheel-install,3.8.18)
	@if [ -x "$(PY38)" ]; then $(MAKE) --no-print-directory $(WHEELHOUSE)/.complete && \
	  ASCEND_LAB_WHEELHOUSE=$(abspath $(WHEELHOUSE)) ASCEND_LAB_PY38=$(PY38) \
	  $(BIN)/python -m pytest -q -p no:cacheprovider -m packaging tests/packaging; fi

# Everything the checks need is set up first, in parallel (mostly downloads and unpacking:
# ~2 min side by side instead of ~6 one after the other), then the checks run one after the
# other, each on every core, all of them even when one fails (the run still fails: one CI log
# shows every failure). A leg whose interpreter is missing is left out of the set-up; its
# check target then says so (and fails in CI).
SETUP_ALL := $(STAMP) browser-deps hub-deps \
  $(if $(wildcard $(PY38)),$(PY38_VENV)/.installed $(WHEELHOUSE)/.complete) \
  $(if $(wildcard $(PY39)),$(PY39_VENV)/.installed)

setup: $(SETUP_ALL)

test:
	$(MAKE) --no-print-directory -j4 --output-sync=target setup
	$(MAKE) --no-print-directory --keep-going lint pytest py38 py39 wheel-test

clean:
	rm -rf $(VENV) .venv-mindspore-* .venv-py3* .venv-wheelhouse $(WHEELHOUSE) dist \
	  labextension/node_modules labextension/lib ascend_lab/labextension ascend_lab/static
