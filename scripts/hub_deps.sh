#!/bin/sh
# Install what the JupyterHub integration's tests and trial class need, idempotently:
#   - the `jupyterhub` package into the project's venv (.venv, or $VENV);
#   - configurable-http-proxy (JupyterHub's default proxy, an npm package) into
#     $VENV/hub-node, linked as $VENV/bin/configurable-http-proxy so the hub finds it on PATH.
# Re-running it changes nothing when both are already there.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$HERE/.venv}
JUPYTERHUB_SPEC=${JUPYTERHUB_SPEC:-"jupyterhub>=4,<6"}
CHP_SPEC=${CHP_SPEC:-"configurable-http-proxy@4"}

if ! "$VENV/bin/python" -c "import jupyterhub" 2>/dev/null; then
    "$VENV/bin/python" -m pip install -q "$JUPYTERHUB_SPEC"
fi

NODE_PREFIX=$VENV/hub-node
CHP=$NODE_PREFIX/node_modules/.bin/configurable-http-proxy
if [ ! -x "$CHP" ]; then
    command -v npm >/dev/null || { echo "hub_deps: npm not found (install nodejs and npm)" >&2; exit 1; }
    mkdir -p "$NODE_PREFIX"
    npm install --silent --no-audit --no-fund --prefix "$NODE_PREFIX" "$CHP_SPEC"
fi
ln -sf "$CHP" "$VENV/bin/configurable-http-proxy"
"$VENV/bin/configurable-http-proxy" --version >/dev/null
echo "hub_deps: jupyterhub $("$VENV/bin/python" -c 'import jupyterhub; print(jupyterhub.__version__)')," \
     "configurable-http-proxy $("$VENV/bin/configurable-http-proxy" --version)"
