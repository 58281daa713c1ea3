"""Shared by the i18n tests: the shipped catalogue and the messages extracted from source."""

import importlib.util
from pathlib import Path

from scripts.locale_files import parse_po

REPO = Path(__file__).resolve().parents[2]
MESSAGES = REPO / "ascend_lab" / "locale" / "zh_CN" / "LC_MESSAGES"
PO = MESSAGES / "ascend_lab_py.po"
MO = MESSAGES / "ascend_lab_py.mo"


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def po_messages():
    return dict(parse_po(PO.read_text(encoding="utf-8"))[1])
