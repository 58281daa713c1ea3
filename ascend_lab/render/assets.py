"""Where the built viewer bundles live, with a clear message when they are not built."""

import os

from ascend_lab.errors import AscendLabError

STATIC_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "static")
BUILD_HINT = "run `jlpm build:viewer` in labextension/ (or install a built ascend-lab wheel)"


class ViewerNotBuiltError(AscendLabError, FileNotFoundError):
    """The viewer's JavaScript bundle is missing from ascend_lab/static."""


def bundle_path(name: str = "viewer.js") -> str:
    """Path of a built bundle (``viewer.js`` or ``standalone.js``); raises if missing."""
    path = os.path.join(STATIC_DIR, name)
    if not os.path.isfile(path):
        raise ViewerNotBuiltError(
            f"the ascend-lab viewer is not built ({path} is missing): {BUILD_HINT}"
        )
    return path


def read_bundle(name: str = "viewer.js") -> str:
    with open(bundle_path(name), encoding="utf-8") as f:
        return f.read()
