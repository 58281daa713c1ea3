"""Load MindSpore's generated ``mind_ir_pb2`` module without importing MindSpore.

``mindspore/train/mind_ir_pb2.py`` is protobuf's generated code for ``mind_ir.proto``. It is
loaded *by file path* under a private module name, so MindSpore's package ``__init__``
(~2.5 s) never runs; only the ``protobuf`` package is needed.
"""

import importlib.util
import os
import sys
from types import ModuleType

from ascend_lab.errors import AscendLabError

__all__ = ["load_mind_ir_pb2", "MindIRUnavailable"]

_MODULE_NAME = "_ascend_lab_mind_ir_pb2"


class MindIRUnavailable(AscendLabError, ImportError):
    """Neither MindSpore's ``mind_ir_pb2.py`` nor a usable ``protobuf`` could be loaded."""


def load_mind_ir_pb2() -> ModuleType:
    """MindSpore's generated ``mind_ir_pb2`` module, loaded without importing MindSpore."""
    cached = sys.modules.get(_MODULE_NAME)
    if cached is not None:
        return cached
    try:
        spec = importlib.util.find_spec("mindspore")
    except (ImportError, ValueError, AttributeError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    candidates = [os.path.join(loc, "train", "mind_ir_pb2.py") for loc in locations]
    found = [c for c in candidates if os.path.isfile(c)]
    if not found:
        raise MindIRUnavailable(
            "the protobuf MindIR decoder needs MindSpore's mind_ir_pb2.py (pip install "
            "mindspore), and MindSpore was not found; decoder='builtin' needs neither"
        )
    file_spec = importlib.util.spec_from_file_location(_MODULE_NAME, found[0])
    if file_spec is None or file_spec.loader is None:
        raise MindIRUnavailable(f"cannot load {found[0]}")
    module = importlib.util.module_from_spec(file_spec)
    try:
        file_spec.loader.exec_module(module)
    except Exception as exc:  # a protobuf runtime too old/new for the generated code
        raise MindIRUnavailable(
            f"cannot load {found[0]} ({type(exc).__name__}: {exc}); "
            "check that the installed protobuf matches MindSpore's"
        ) from exc
    sys.modules[_MODULE_NAME] = module
    return module
