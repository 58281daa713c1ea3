"""Parse ``npu-smi`` output. Pure functions: text in, chips and processes out.

``npu-smi info`` prints a box table whose widths, columns and header change between
versions and boards, so the parser reads cells between ``|`` and names values by the
column headers it finds, instead of by character position:

- header line 1: ``NPU  Name | Health | Power(W) Temp(C) [Hugepages-Usage(page)]``
- header line 2: ``Chip [Device|Phy-ID] | Bus-Id | AICore(%) Memory-Usage(MB) [HBM-Usage(MB)]``
- then, per chip, a line in the shape of header 1 followed by one in the shape of header 2
  (A3 boards print both lines for each of the two chips of an NPU);
- an optional process table: ``NPU Chip | Process id | Process name | Process memory(MB)``.

``-`` and ``NA`` become ``None``. Usage pairs are read with or without spaces around the
slash (``41052/ 65536``, ``0    / 0``). Nothing here raises on odd input: lines that do
not fit are skipped and reported in ``NpuSmiInfo.problems`` (the first 20, then a count).
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ascend_lab.model.device_status import Chip, Process

_MISSING = {"", "-", "--", "NA", "N/A", "na", "n/a"}
_HEADER_LINE = re.compile(r"npu-smi\s+(\S+)(?:\s+Version:\s*(\S+))?", re.IGNORECASE)
_SEPARATOR = re.compile(r"^\s*\+[-=+]*\+?\s*$")
# What npu-smi prints instead of a table (npu-smi's own messages, the loader's, the shell's).
_DCMI_RET = re.compile(r"(?i)\bret(?: is|\s*=)\s{0,3}(-8\d{3})(?!\d)")
_DCMI_FAILED = re.compile(
    r"(?i)dcmi[^\n]{0,40}initiali[sz]ed? failed|failed to init[^\n]{0,20}dcmi"
)
_LIBRARY = re.compile(
    r"error while loading shared libraries: ([A-Za-z0-9_.+-]{1,100}\.so[0-9.]{0,20})"
)
_PERMISSION = re.compile(r"(?i)permission denied")
_NO_DEVICE_NODE = re.compile(
    r"/dev/davinci[a-z_]{0,20}\d{0,3}[^\n]{0,40}(?:No such file|not exist)"
)
# Hostile or broken output must not turn into an unbounded status: keep the first few.
MAX_PROBLEMS = 20
MAX_PROCESSES = 100


@dataclass
class NpuSmiInfo:
    """What one ``npu-smi info`` printout says."""

    npu_smi_version: Optional[str] = None  # "npu-smi 25.2.0"
    driver_version: Optional[str] = None  # "Version: 25.2.0" on the same line
    chips: List[Chip] = field(default_factory=list)
    processes: List[Process] = field(default_factory=list)
    has_table: bool = False  # a chip table header was found
    problems: List[str] = field(default_factory=list)  # the first MAX_PROBLEMS
    more_problems: int = 0  # problems not kept
    more_processes: int = 0  # process rows after the first MAX_PROCESSES, not kept

    def add_problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text[:200])
        else:
            self.more_problems += 1


@dataclass(frozen=True)
class SmiFailure:
    """What ``npu-smi`` printed instead of a table, recognised.

    ``kind``: "dcmi" (a DCMI return code: ``code`` is "-8005"...), "dcmi-init" (DCMI failed
    to start, no code printed), "library" (a shared library did not load: ``library``),
    "permission" or "device-node" (a /dev/davinci* node is missing). ``line`` is the line
    that shows it, as printed (stripped, at most 200 characters).
    """

    kind: str
    line: str
    code: str = ""
    library: str = ""


def failure_of(text: str) -> Optional[SmiFailure]:
    """The failure ``text`` (npu-smi's stdout and stderr) shows, or None. The most specific
    wins: a DCMI code, a library, a device node, a DCMI start-up failure, a permission."""
    text = text[:65536]

    def line_at(pos: int) -> str:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        return text[start : end if end >= 0 else len(text)].strip()[:200]

    m = _DCMI_RET.search(text)
    if m:
        return SmiFailure("dcmi", line_at(m.start()), code=m.group(1))
    m = _LIBRARY.search(text)
    if m:
        return SmiFailure("library", line_at(m.start()), library=m.group(1))
    for kind, pattern in (
        ("device-node", _NO_DEVICE_NODE),
        ("dcmi-init", _DCMI_FAILED),
        ("permission", _PERMISSION),
    ):
        m = pattern.search(text)
        if m:
            return SmiFailure(kind, line_at(m.start()))
    return None


def _cells(line: str) -> List[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _tokens(cell: str) -> List[str]:
    """Split a cell into values, keeping ``a / b`` pairs as one ``a/b`` token.

    The same tokens as ``re.sub(r"(\\S+?)\\s*/\\s*(\\S+)", r"\\1/\\2", cell).split()``, but
    by a linear scan over words (that regex is quadratic on one long word): a word whose
    first slash after its first character ends it joins the next word (``41052/ 65536``);
    a word with no such slash joins a next word that starts with ``/`` (``0 /0``,
    ``0 / 0``).
    """
    words = cell.split()
    out: List[str] = []
    i, n = 0, len(words)
    while i < n:
        word = words[i]
        slash = word.find("/", 1)
        if slash == len(word) - 1 and i + 1 < n:  # "a/ b"
            out.append(word + words[i + 1])
            i += 2
        elif slash == -1 and i + 1 < n and words[i + 1].startswith("/"):
            if words[i + 1] != "/":  # "a /b"
                out.append(word + words[i + 1])
                i += 2
            elif i + 2 < n:  # "a / b"
                out.append(word + "/" + words[i + 2])
                i += 3
            else:
                out.append(word)
                i += 1
        else:
            out.append(word)
            i += 1
    return out


def _int(text: Optional[str]) -> Optional[int]:
    if text is None or text.strip() in _MISSING:
        return None
    try:
        return int(text.strip())
    except ValueError:
        f = _float(text)
        return int(f) if f is not None and f == int(f) else None


def _float(text: Optional[str]) -> Optional[float]:
    if text is None or text.strip() in _MISSING:
        return None
    try:
        value = float(text.strip())
    except (ValueError, OverflowError):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def _text(text: Optional[str]) -> Optional[str]:
    if text is None or text.strip() in _MISSING:
        return None
    return text.strip()


def _pair(token: Optional[str]) -> Tuple[Optional[int], Optional[int]]:
    if token is None or "/" not in token:
        return None, None
    a, _, b = token.partition("/")
    return _int(a), _int(b)


def _column_key(header: str) -> str:
    h = header.lower()
    for key, needle in (
        ("power", "power"),
        ("temp", "temp"),
        ("hugepages", "hugepage"),
        ("aicore", "aicore"),
        ("hbm", "hbm"),
        ("memory", "memory"),
    ):
        if needle in h:
            return key
    return h


def _named(cell: str, columns: List[str]) -> Dict[str, str]:
    """Values of one cell by column key; extra or missing tokens are tolerated."""
    tokens = _tokens(cell)
    if not columns:
        return {}
    out: Dict[str, str] = {}
    for i, key in enumerate(columns):
        if i < len(tokens):
            out[key] = tokens[i]
    return out


def _is_chip_header(cells: List[str]) -> bool:
    return len(cells) >= 2 and "name" in cells[0].lower() and "health" in cells[1].lower()


def _is_chip_header2(cells: List[str]) -> bool:
    return len(cells) >= 2 and cells[0].lower().startswith("chip") and "bus" in cells[1].lower()


def _is_process_header(cells: List[str]) -> bool:
    return any("process id" in c.lower() for c in cells)


def parse_info(text: str) -> NpuSmiInfo:
    """Parse the output of ``npu-smi info``."""
    info = NpuSmiInfo()
    if not isinstance(text, str):
        info.add_problem("npu-smi output is not text")
        return info
    cols1: List[str] = ["power", "temp", "hugepages"]
    cols2: List[str] = ["aicore", "memory", "hbm"]
    section = ""  # "" | "chips" | "processes"
    pending: Optional[List[str]] = None  # the cells of a chip's first line
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        if _SEPARATOR.match(line):
            if pending is not None and section == "chips":
                info.add_problem("chip line without its second line: " + " ".join(pending))
            pending = None
            continue
        cells = _cells(line)
        if info.npu_smi_version is None and not info.has_table:
            m = _HEADER_LINE.search(line)
            if m:
                info.npu_smi_version = m.group(1)
                info.driver_version = m.group(2)
                continue
        if _is_chip_header(cells):
            info.has_table = True
            section = "chips"
            cols1 = [_column_key(h) for h in _header_columns(cells[2] if len(cells) > 2 else "")]
            continue
        if _is_chip_header2(cells):
            cols2 = [_column_key(h) for h in _header_columns(cells[2] if len(cells) > 2 else "")]
            continue
        if _is_process_header(cells):
            section = "processes"
            pending = None
            continue
        if section == "chips":
            if pending is None:
                pending = cells
            else:
                chip = _chip_from_lines(pending, cells, cols1, cols2)
                if chip is None:
                    info.add_problem("unreadable chip lines: " + line.strip())
                else:
                    info.chips.append(chip)
                pending = None
        elif section == "processes":
            if "no running process" in line.lower():
                continue
            proc = _process_from_cells(cells)
            if proc is None:
                info.add_problem("unreadable process line: " + line.strip())
            elif len(info.processes) < MAX_PROCESSES:
                info.processes.append(proc)
            else:
                info.more_processes += 1
    if pending is not None and section == "chips":
        info.add_problem("chip line without its second line: " + " ".join(pending))
    return info


def _header_columns(cell: str) -> List[str]:
    """``"Power(W)    Temp(C)   Hugepages-Usage(page)"`` -> three column names."""
    return cell.split()


def _chip_from_lines(
    first: List[str], second: List[str], cols1: List[str], cols2: List[str]
) -> Optional[Chip]:
    if len(first) < 2 or len(second) < 2:
        return None
    head1 = first[0].split()
    head2 = second[0].split()
    npu = _int(head1[0]) if head1 else None
    chip_id = _int(head2[0]) if head2 else None
    if npu is None or chip_id is None:
        return None
    v1 = _named(first[2], cols1) if len(first) > 2 else {}
    v2 = _named(second[2], cols2) if len(second) > 2 else {}
    huge_used, huge_total = _pair(v1.get("hugepages"))
    mem_used, mem_total = _pair(v2.get("memory"))
    hbm_used, hbm_total = _pair(v2.get("hbm"))
    return Chip(
        npu=npu,
        chip=chip_id,
        name=" ".join(head1[1:]),
        device=_int(head2[1]) if len(head2) > 1 else None,
        health=_text(first[1]),
        power_w=_float(v1.get("power")),
        temp_c=_float(v1.get("temp")),
        hugepages_used=huge_used,
        hugepages_total=huge_total,
        aicore_percent=_float(v2.get("aicore")),
        memory_used_mb=mem_used,
        memory_total_mb=mem_total,
        hbm_used_mb=hbm_used,
        hbm_total_mb=hbm_total,
        bus_id=_text(second[1]),
    )


def _process_from_cells(cells: List[str]) -> Optional[Process]:
    if len(cells) < 3:
        return None
    head = cells[0].split()
    if len(head) < 2:
        return None
    npu, chip, pid = _int(head[0]), _int(head[1]), _int(cells[1])
    if npu is None or chip is None or pid is None:
        return None
    name = " | ".join(cells[2:-1]) if len(cells) > 3 else ""
    memory = _int(cells[-1]) if len(cells) > 3 else _int(cells[2])
    return Process(npu=npu, chip=chip, pid=pid, name=name.strip(), memory_mb=memory)


def parse_key_values(text: str) -> Dict[str, str]:
    """Parse ``Key : Value`` lines (``npu-smi info -t board|usages|health``).

    Keys keep npu-smi's spelling (``"HBM Capacity(MB)"``); blank and odd lines are skipped.
    """
    out: Dict[str, str] = {}
    if not isinstance(text, str):
        return out
    for raw in text.splitlines():
        key, sep, value = raw.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key:
            out[key] = value.strip()
    return out


def parse_board(text: str) -> Dict[str, str]:
    """``npu-smi info -t board -i N``: software/firmware version, bus, chip count…"""
    return parse_key_values(text)


def parse_usages(text: str) -> Dict[str, str]:
    """``npu-smi info -t usages -i N``: HBM/DDR capacity and usage rates."""
    return parse_key_values(text)


def parse_health(text: str) -> Dict[str, str]:
    """``npu-smi info -t health -i N -c C``: health status, error code and text."""
    return parse_key_values(text)
