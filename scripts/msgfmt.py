"""Compile gettext ``.po`` files to ``.mo`` (pure Python; the venv has no GNU msgfmt).

    python scripts/msgfmt.py ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab_py.po

writes the ``.mo`` beside it. Untranslated messages (empty msgstr) are left out, as GNU
msgfmt does. The output is deterministic, so a test can compare it with the committed file.
"""

import struct
import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.locale_files import parse_po  # noqa: E402  (the one .po reader)


def _header_text(po_text: str) -> str:
    """The raw msgstr of the header entry (msgid ""), which gettext reads for charset."""
    headers, _ = parse_po(po_text)
    return "".join(f"{k}: {v}\n" for k, v in headers.items())


def compile_po(po_text: str) -> bytes:
    _, messages = parse_po(po_text)
    pairs = {"": _header_text(po_text)}
    for msgid, msgstr in messages:
        if msgstr:
            pairs[msgid] = msgstr
    keys = sorted(pairs, key=lambda k: k.encode("utf-8"))
    ids: List[bytes] = [k.encode("utf-8") for k in keys]
    strs: List[bytes] = [pairs[k].encode("utf-8") for k in keys]
    n = len(keys)
    table_ids = 7 * 4
    table_strs = table_ids + n * 8
    data_start = table_strs + n * 8
    offsets = []
    blob = b""
    for item in ids + strs:
        offsets.append((len(item), data_start + len(blob)))
        blob += item + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, n, table_ids, table_strs, 0, data_start)
    for length, offset in offsets:
        out += struct.pack("<2I", length, offset)
    return out + blob


def main(argv: List[str]) -> int:
    for name in argv:
        po = Path(name)
        mo = po.with_suffix(".mo")
        mo.write_bytes(compile_po(po.read_text(encoding="utf-8")))
        print(f"{mo}: {mo.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
