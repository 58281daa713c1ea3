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
_SEPARATOR = re.compile(r"^\s*\+[-=+]*\+?\s*$")
# What npu-smi prints instead of a table: its own messages (their printf formats in npu-smi's
# main: "dcmi module initialize failed. ret is %d", "dcmi model initialized failed, because the
# device is used. ret is %d", "npu get board type failed. ret is %d", "Failed to execute
# npu-smi %s. ret is %d.", "Command or option is not found."; a query's "This device does not
# support ..."), the loader's and the shell's.
_DCMI_RET = re.compile(r"(?i)\bret(?: is|\s*=)\s{0,3}(-8\d{3})(?!\d)")
_DCMI_FAILED = re.compile(
    r"(?i)dcmi[^\n]{0,40}initiali[sz]ed? failed|failed to init[^\n]{0,20}dcmi"
)
_LIBRARY = re.compile(
    r"error while loading shared libraries: ([A-Za-z0-9_.+-]{1,100}\.so[0-9.]{0,20})"
)
_PERMISSION = re.compile(r"(?i)permission denied")
# Printed before a DCMI code when the device nodes could not be opened (a user outside the
# HwHiAiUser group, a sandbox): "DrvMngGetConsoleLogLevel failed. (ret=4)"; a normal
# failure prints "(g_conLogLevel=3)" there instead.
_DRVMNG_ACCESS = re.compile(r"DrvMngGetConsoleLogLevel failed\.?\s{0,3}\(?ret\s{0,3}=\s{0,3}4\)")
_NO_DEVICE_NODE = re.compile(
    r"/dev/davinci[a-z_]{0,20}\d{0,3}[^\n]{0,40}(?:No such file|not exist)"
)
# The shell (bash, sh, zsh), docker exec or Python could not find the program itself.
_NOT_FOUND = re.compile(
    r"(?i)npu-smi\b[\"']?:?[^\n]{0,12}(?:command not found|: not found|No such file or directory"
    r"|executable file not found)|command not found:\s{0,3}npu-smi\b"
)
# npu-smi's own "<what> failed. ret is <code>" lines after DCMI started: the board type, or
# the command itself ("Failed to execute npu-smi info. ret is -8255.").
_BOARD_TYPE = re.compile(r"(?i)npu get board type failed\.?\s{0,3}ret is\s{0,3}(-?\d{1,6})")
_EXECUTE = re.compile(
    r"(?i)Failed to execute npu-smi\s{1,3}([\w-]{1,20})\.?\s{0,3}ret is\s{0,3}(-?\d{1,6})"
)
# A query this board or driver does not offer ("This device does not support querying topo.",
# "... does not support hccs topo."): an answer, not a fault.
_UNSUPPORTED = re.compile(r"(?i)\b(?:this )?device does not support\s{1,3}([^\n.]{1,80})")
_BAD_OPTION = re.compile(
    r"(?i)Command or option is not found|\binvalid (?:option|parameter|argument)"
)
# An NPU or chip id that is not on this machine, in npu-smi's and the driver's words.
_BAD_ID = re.compile(
    r"(?i)\b(?:device|card|chip|npu)(?:[ _]?id)?\b[^\n]{0,30}?"
    r"\b(?:is not exist|does not exist|not exist|is invalid|out of range)"
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
    "device-node" (a /dev/davinci* node is missing), "not-found" (the shell or docker found no
    npu-smi), "board-type" (npu-smi could not tell the board: ``code``), "execute" (the command
    failed after start-up: ``code``, and ``detail`` names the command), "unsupported" (this
    device does not offer the query: ``detail`` is what it names), "bad-option", "bad-id" (an
    NPU or chip id not on this machine) or "permission". ``line`` is the line that shows it,
    as printed (stripped, at most 200 characters).
    """

    kind: str
    line: str
    code: str = ""
    library: str = ""
    # "access" when the driver's manager printed "DrvMngGetConsoleLogLevel failed. (ret=4)"
    # before the DCMI code: the user (or a sandbox) could not open the device nodes; for
    # "unsupported" / "execute", what the query or command was
    detail: str = ""


def failure_of(text: str) -> Optional[SmiFailure]:
    """The failure ``text`` (npu-smi's stdout and stderr) shows, or None.

    The most specific wins: a DCMI code, a library, a device node, the program not found,
    npu-smi's own "... failed. ret is N" lines, a query the device does not support, a bad
    option or id, a DCMI start-up failure without a code, a permission."""
    if not isinstance(text, str):
        return None
    text = text[:65536]

    def line_at(pos: int) -> str:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        return text[start : end if end >= 0 else len(text)].strip()[:200]

    m = _DCMI_RET.search(text)
    if m:
        detail = "access" if _DRVMNG_ACCESS.search(text) else ""
        return SmiFailure("dcmi", line_at(m.start()), code=m.group(1), detail=detail)
    m = _LIBRARY.search(text)
    if m:
        return SmiFailure("library", line_at(m.start()), library=m.group(1))
    m = _NO_DEVICE_NODE.search(text)
    if m:
        return SmiFailure("device-node", line_at(m.start()))
    m = _NOT_FOUND.search(text)
    if m:
        return SmiFailure("not-found", line_at(m.start()))
    m = _BOARD_TYPE.search(text)
    if m:
        return SmiFailure("board-type", line_at(m.start()), code=m.group(1))
    m = _EXECUTE.search(text)
    if m:
        return SmiFailure("execute", line_at(m.start()), code=m.group(2), detail=m.group(1))
    m = _UNSUPPORTED.search(text)
    if m:
        what = m.group(1).strip()[:80]
        return SmiFailure("unsupported", line_at(m.start()), detail=what)
    for kind, pattern in (
        ("bad-option", _BAD_OPTION),
        ("bad-id", _BAD_ID),
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


_COLUMN_KEYS = (
    ("power", "power"),
    ("temp", "temp"),
    ("hugepages", "hugepage"),
    ("aicore", "aicore"),
    ("hbm", "hbm"),
    ("memory", "memory"),
    ("bus", "bus"),
    ("health", "health"),
    ("device", "device"),
    ("device", "phy"),
    ("name", "name"),
    ("npu", "npu"),
    ("chip", "chip"),
)


def _column_key(header: str) -> str:
    """A header word as the column it names: ``"HBM-Usage(MB)"`` -> ``"hbm"``."""
    h = header.lower()
    for key, needle in _COLUMN_KEYS:
        if needle in h:
            return key
    return h[:40]


def _header_columns(cell: str) -> List[str]:
    """``"Power(W)    Temp(C)   Hugepages-Usage(page)"`` -> ``["power", "temp", "hugepages"]``."""
    return [_column_key(h) for h in cell.split()]


def _named(cell: str, columns: List[str]) -> Dict[str, str]:
    """Values of one cell by column key, in the header's order. A ``name`` column takes
    the words left over (names with spaces); other extra or missing words are tolerated."""
    tokens = _tokens(cell)
    out: Dict[str, str] = {}
    for i, key in enumerate(columns):
        if i >= len(tokens):
            break
        if key == "name" and i == len(columns) - 1:
            out[key] = " ".join(tokens[i:])
        else:
            out[key] = tokens[i]
    return out


# -- the table's grammar -------------------------------------------------------------------
#
# text    := line*                  (anything before, between and after is not the table)
# line    := [prefix] row | [prefix] separator
# prefix  := spaces, markdown quotes ("> "), a shell prompt or log prefix before the first "|"
# row     := "|" cell ("|" cell)* ["|"]   (a row cut by a narrow terminal is joined again)
# header1 := row whose first cell names NPU and Name        -> columns of the NPU rows
# header2 := row whose first cell starts with Chip and which has a Bus-Id cell -> chip rows
# block   := NPU row, then one chip row per chip (A3 and 310P Duo boards: several)
# process := header "... | Process id | Process name | Process memory" then process rows
#
# Values are read by the header's column names, cell by cell, never by character position.

MAX_TEXT = 4 * 1024 * 1024  # characters read; real output is a few KiB
MAX_LINES = 20000
MAX_CHIPS = 512
_MAX_JOIN = 4  # continuation lines joined to a row a narrow terminal wrapped


def _strip_prefix(line: str) -> str:
    """The table part of a line: without indentation, markdown quotes, a prompt or a log
    prefix in front of the first ``|`` or ``+``. A line that is not a table line comes back
    stripped, unchanged otherwise."""
    s = line.strip()
    while s.startswith(">"):
        s = s[1:].lstrip()
    if not s or s[0] in "|+":
        return s
    bar = s.find("|")
    if bar > 0 and s.endswith("|") and s.count("|") >= 3:
        return s[bar:]
    plus = s.find("+-")
    if plus < 0:
        plus = s.find("+=")
    if plus > 0 and _SEPARATOR.match(s[plus:]):
        return s[plus:]
    return s


def _table_lines(text: str) -> List[str]:
    """Lines with their table part cut out and wrapped rows joined back (bounded).

    A terminal narrower than the table cuts a row at a column, in the middle of a word as
    often as not, and adds nothing: the pieces are joined as they are."""
    raw = text[:MAX_TEXT].splitlines()[:MAX_LINES]
    out: List[str] = []
    i, n = 0, len(raw)
    while i < n:
        whole = raw[i].rstrip("\r\n")
        i += 1
        joined = 0
        while joined < _MAX_JOIN and i < n:
            part = _strip_prefix(whole)
            if not part.startswith("|") or part.endswith("|"):
                break
            nxt = _strip_prefix(raw[i])
            if not nxt or nxt[0] in "|+":
                break
            whole += raw[i]
            i += 1
            joined += 1
        out.append(_strip_prefix(whole))
    return out


_HEALTH_WORD = re.compile(r"^[A-Za-z0-9]{1,12}$")


def _looks_like_npu_row(cells: List[str]) -> bool:
    """An NPU row seen before any header: ``| 0  310B4 | Alarm | 0.0  64  15 / 15 |``
    (an NPU id and a name, a one-word health, a cell of numbers)."""
    if len(cells) < 3:
        return False
    head = cells[0].split()
    return (
        len(head) == 2
        and _int(head[0]) is not None
        and _int(head[1]) is None
        and bool(_HEALTH_WORD.match(cells[1].strip()))
        and _float(cells[2].split()[0] if cells[2].split() else None) is not None
    )


def _is_bus_like(cell: str) -> bool:
    c = cell.strip()
    return c in _MISSING or ":" in c


def _is_chip_header(cells: List[str]) -> bool:
    first = cells[0].lower().split() if cells else []
    return len(cells) >= 2 and "npu" in first and "name" in first


def _is_chip_header2(cells: List[str]) -> bool:
    return (
        len(cells) >= 2
        and cells[0].lower().startswith("chip")
        and any("bus" in c.lower() for c in cells[1:])
    )


def _is_process_header(cells: List[str]) -> bool:
    return any("process id" in c.lower() for c in cells)


class _TableReader:
    """The state of one pass over ``npu-smi info``'s lines."""

    def __init__(self, info: NpuSmiInfo) -> None:
        self.info = info
        self.head1: List[List[str]] = [["npu", "name"], ["health"], ["power", "temp", "hugepages"]]
        self.head2: List[List[str]] = [["chip", "device"], ["bus"], ["aicore", "memory", "hbm"]]
        self.proc_cols: Dict[str, int] = {}
        self.section = ""  # "" | "chips" | "processes" | "done"
        self.npu_row: Optional[List[str]] = None  # the cells of the NPU row being read
        self.npu_rows_used = 0  # chip rows read for it
        self.more_chips = 0

    def version(self, line: str) -> None:
        m = _VERSION.search(line)
        if m:
            self.info.npu_smi_version = m.group(1)
            v = _DRIVER.search(line)
            self.info.driver_version = v.group(1) if v else None

    def end_block(self) -> None:
        if self.npu_row is not None and self.npu_rows_used == 0 and self.section == "chips":
            self.info.add_problem("chip line without its second line: " + " | ".join(self.npu_row))
        self.npu_row, self.npu_rows_used = None, 0

    def header(self, cells: List[str]) -> bool:
        if _is_chip_header(cells):
            if self.info.chips:  # a second table in the same text: keep the first
                self.info.add_problem("a second npu-smi table follows; only the first is read")
                self.section = "done"
                return True
            self.end_block()
            self.info.has_table = True
            self.section = "chips"
            self.head1 = [_header_columns(c) for c in cells]
            return True
        if _is_chip_header2(cells) and self.section == "chips":
            self.head2 = [_header_columns(c) for c in cells]
            return True
        if _is_process_header(cells) and self.info.has_table:
            self.end_block()
            self.section = "processes"
            self.proc_cols = _process_columns(cells)
            return True
        return False

    def chip_row(self, cells: List[str], line: str) -> None:
        head = cells[0].split()
        second = len(head) > 1 and _int(head[1]) is None
        is_npu_row = (
            self.npu_row is None or second or (len(cells) > 1 and not _is_bus_like(cells[1]))
        )
        if is_npu_row:
            self.end_block()
            if _int(head[0] if head else None) is None:
                self.info.add_problem("unreadable chip line: " + line)
                return
            self.npu_row = cells
            return
        if self.npu_row is None:
            return
        chip = _chip_from_rows(self.npu_row, cells, self.head1, self.head2)
        self.npu_rows_used += 1
        if chip is None:
            self.info.add_problem("unreadable chip lines: " + line)
        elif len(self.info.chips) < MAX_CHIPS:
            self.info.chips.append(chip)
        else:
            self.more_chips += 1

    def process_row(self, cells: List[str], line: str) -> None:
        if _NO_PROCESS.search(
            line
        ):  # "No running processes found in NPU 0", "No process in device."
            return
        proc = _process_from_cells(cells, self.proc_cols)
        if proc is None:
            self.info.add_problem("unreadable process line: " + line)
        elif len(self.info.processes) < MAX_PROCESSES:
            self.info.processes.append(proc)
        else:
            self.info.more_processes += 1


_NO_PROCESS = re.compile(r"(?i)\bno (?:running )?process")
_VERSION = re.compile(r"(?i)\bnpu-smi\s{1,40}v?(\d[0-9A-Za-z._-]{0,40})")
_DRIVER = re.compile(r"(?i)\bversion:\s{0,40}([^\s|]{1,40})")


def parse_info(text: str) -> NpuSmiInfo:
    """Parse the output of ``npu-smi info``: its chip table and its process table.

    Reads the table wherever it sits in the text (after a prompt, inside a markdown fence
    or quote, indented in a document, behind a log prefix), joins rows a narrow terminal
    wrapped, and names each value by the header's columns. Rows it cannot read are
    reported in ``problems``, never raised.
    """
    info = NpuSmiInfo()
    if not isinstance(text, str):
        info.add_problem("npu-smi output is not text")
        return info
    reader = _TableReader(info)
    for line in _table_lines(text):
        if not line:
            continue
        if _SEPARATOR.match(line):
            reader.end_block()
            continue
        if not line.startswith("|"):
            if info.npu_smi_version is None and not info.has_table:
                reader.version(line)
            continue
        cells = _cells(line)
        if info.npu_smi_version is None and not info.has_table and "npu-smi" in line.lower():
            reader.version(line)
            if info.npu_smi_version is not None:
                continue
        if reader.header(cells) or reader.section == "done":
            continue
        if reader.section == "" and _looks_like_npu_row(cells):
            reader.section = "implicit"  # rows pasted without the header: npu-smi's order
        if reader.section in ("chips", "implicit"):
            reader.chip_row(cells, line)
        elif reader.section == "processes":
            reader.process_row(cells, line)
    reader.end_block()
    if reader.section == "implicit" and info.chips:
        info.has_table = True
        info.add_problem("no header row: the columns are read in npu-smi's usual order")
    if reader.more_chips:
        info.add_problem(f"{reader.more_chips} more chips not read (the first {MAX_CHIPS} are)")
    return info


def _row_values(cells: List[str], head: List[List[str]]) -> Dict[str, str]:
    """One row's values by column key: each cell read by the header cell above it."""
    out: Dict[str, str] = {}
    for i, cell in enumerate(cells):
        cols = head[i] if i < len(head) else []
        if len(cols) == 1 and cols[0] in ("health", "bus"):
            out[cols[0]] = cell.strip()  # a whole cell: "0000:C1:00.0", "OK"
        else:
            out.update(_named(cell, cols))
    return out


def _chip_from_rows(
    first: List[str], second: List[str], head1: List[List[str]], head2: List[List[str]]
) -> Optional[Chip]:
    """One chip from its NPU row and its chip row, each cell read by its header's columns."""
    v = _row_values(second, head2)
    v.update((k, x) for k, x in _row_values(first, head1).items() if k != "chip")
    head1_npu = first[0].split()
    npu = _int(head1_npu[0]) if head1_npu else None
    chip_id = _int(v.get("chip"))
    if npu is None or chip_id is None:
        return None
    huge_used, huge_total = _pair(v.get("hugepages"))
    mem_used, mem_total = _pair(v.get("memory"))
    hbm_used, hbm_total = _pair(v.get("hbm"))
    return Chip(
        npu=npu,
        chip=chip_id,
        name=v.get("name", ""),
        device=_int(v.get("device")),
        health=_text(v.get("health")),
        power_w=_float(v.get("power")),
        temp_c=_float(v.get("temp")),
        hugepages_used=huge_used,
        hugepages_total=huge_total,
        aicore_percent=_float(v.get("aicore")),
        memory_used_mb=mem_used,
        memory_total_mb=mem_total,
        hbm_used_mb=hbm_used,
        hbm_total_mb=hbm_total,
        bus_id=_text(v.get("bus")),
    )


_UNIT_POWER = {"b": -2, "kb": -1, "mb": 0, "gb": 1}  # the unit as a power of 1024 MB
_UNIT = re.compile(r"\((b|kb|mb|gb|kib|mib|gib)\)")


def _process_columns(cells: List[str]) -> Dict[str, int]:
    """Where the process header puts each column: ``pid`` ("Process id"), ``name``,
    ``mem`` ("Process memory(MB)"), ``cells`` (how many); ``chip`` 1 when the first cell
    names the chip too ("NPU Chip"), 0 when it names only the NPU ("NPU ID", Ascend 950's
    form); ``unit`` the memory's unit as a power of 1024 MB (-2 for ``Process memory(B)``).
    26.x adds "Process id in container" after the memory: a column that is not the process
    id, nor the last one."""
    first = cells[0].lower() if cells else ""
    cols = {"cells": len(cells), "chip": 1 if "chip" in first or "npu" not in first else 0}
    for i, cell in enumerate(cells):
        c = cell.lower()
        if "container" in c:
            key = "container_pid"
        elif "process id" in c:
            key = "pid"
        elif "process name" in c:
            key = "name"
        elif "memory" in c:
            key = "mem"
            unit = _UNIT.search(c.replace(" ", ""))
            if unit:
                cols.setdefault("unit", _UNIT_POWER[unit.group(1).replace("i", "")])
        else:
            continue
        cols.setdefault(key, i)
    return cols


def _process_from_cells(
    cells: List[str], cols: Optional[Dict[str, int]] = None
) -> Optional[Process]:
    """A process row, its cells named by the process header (``NPU Chip | Process id |
    Process name | Process memory(MB) [| Process id in container]``, or ``NPU ID | ...``
    without the chip). A name that holds ``|`` spans the extra cells; without a header the
    old layout is assumed. Memory in another unit than MB is given in MB."""
    cols = cols or {"pid": 1, "name": 2, "mem": 3, "cells": 4, "chip": 1}
    if len(cells) < 3:
        return None
    head = cells[0].split()
    with_chip = cols.get("chip", 1) == 1
    if len(head) < (2 if with_chip else 1):
        return None
    extra = max(0, len(cells) - cols.get("cells", len(cells)))  # "|" inside the name

    def at(key: str, default: int) -> Optional[str]:
        i = cols.get(key, default)
        i = i + extra if i > cols.get("name", 2) else i
        return cells[i] if 0 <= i < len(cells) else None

    npu, pid = _int(head[0]), _int(at("pid", 1))
    chip = _int(head[1]) if with_chip else (_int(head[1]) if len(head) > 1 else 0)
    if npu is None or chip is None or pid is None:
        return None
    first = cols.get("name", 2)
    name = " | ".join(cells[first : first + extra + 1]) if first < len(cells) else ""
    memory = _int(at("mem", len(cells) - 1))
    unit = cols.get("unit", 0)
    if memory is not None and unit:
        memory = memory * 1024**unit if unit > 0 else memory // 1024 ** (-unit)
    return Process(npu=npu, chip=chip, pid=pid, name=name.strip(), memory_mb=memory)


@dataclass(frozen=True)
class ChipMapEntry:
    """One row of ``npu-smi info -m``: a chip and its logic id (``None`` for an Mcu)."""

    npu: int
    chip: int
    logic_id: Optional[int]
    name: str
    phy_id: Optional[int] = None


def _map_columns(header: str) -> List[str]:
    """``"NPU ID  Slot ID  Chip ID  Chip Logic ID  Chip Phy-ID  Chip Name"`` -> ["npu id",
    "slot id", "chip id", "chip logic id", "chip phy-id", "chip name"]: a column's name ends
    at a word ``ID``/``*-ID`` or at ``Name`` (the last column, whose values have spaces)."""
    names: List[str] = []
    words: List[str] = []
    for word in header.split():
        words.append(word.lower())
        if word.lower() in ("id", "name") or word.lower().endswith("-id"):
            names.append(" ".join(words))
            words = []
    return names


def parse_map(text: str) -> List[ChipMapEntry]:
    """``npu-smi info -m``: ``NPU ID  [Slot ID]  Chip ID  [Chip Logic ID]  [Chip Phy-ID]
    Chip Name`` (Ascend 950 adds Slot ID and drops the logic id).

    Each row is read by the header's columns (names have spaces: ``Ascend 910B3``); rows
    that do not fit are skipped."""
    out: List[ChipMapEntry] = []
    if not isinstance(text, str):
        return out
    cols: Optional[List[str]] = None
    for line in text[:MAX_TEXT].splitlines()[:MAX_LINES]:
        s = _strip_prefix(line)
        low = s.lower()
        if "npu id" in low and "chip name" in low:
            cols = _map_columns(s)
            continue
        if not cols or cols[-1] != "chip name" or "chip id" not in cols:
            continue
        words = s.split()
        n = len(cols) - 1
        if len(words) <= n:
            continue
        named = dict(zip(cols[:n], words[:n]))
        npu, chip = _int(named.get("npu id")), _int(named.get("chip id"))
        if npu is None or chip is None:
            continue
        out.append(
            ChipMapEntry(
                npu=npu,
                chip=chip,
                logic_id=_int(named.get("chip logic id")),
                name=" ".join(words[n:]),
                phy_id=_int(named.get("chip phy-id", named.get("chip phy id"))),
            )
        )
        if len(out) >= MAX_CHIPS:
            break
    return out


@dataclass
class NpuList:
    """``npu-smi info -l``: the count it states and each NPU with its chip count."""

    total: Optional[int] = None
    npus: List[Tuple[int, Optional[int]]] = field(default_factory=list)


def parse_list(text: str) -> NpuList:
    """``npu-smi info -l``: ``Total Count : 8``, then ``NPU ID : n`` / ``Chip Count : c``."""
    out = NpuList()
    if not isinstance(text, str):
        return out
    for line in text[:MAX_TEXT].splitlines()[:MAX_LINES]:
        key, sep, value = line.partition(":")
        if not sep:
            continue
        k = key.strip().lower()
        if k == "total count":
            out.total = _int(value)
        elif k == "npu id" and len(out.npus) < MAX_CHIPS:
            npu = _int(value)
            if npu is not None:
                out.npus.append((npu, None))
        elif k == "chip count" and out.npus and out.npus[-1][1] is None:
            out.npus[-1] = (out.npus[-1][0], _int(value))
    return out


@dataclass
class WatchSample:
    """One line of ``npu-smi info watch``; ``values`` holds every column by its header name
    (``"AI Core(%)"``, ``"Memory BW(%)"``...), ``None`` where the value is not a number."""

    npu: int
    chip: Optional[int] = None
    power_w: Optional[float] = None
    temp_c: Optional[float] = None
    aicore_percent: Optional[float] = None
    values: Dict[str, Optional[float]] = field(default_factory=dict)


MAX_SAMPLES = 10000


def _watch_columns(line: str) -> List[str]:
    """``"NpuID(Idx)  ChipId(Idx) Pwr(W)  AI Core(%)"`` -> ``["NpuID(Idx)", "ChipId(Idx)",
    "Pwr(W)", "AI Core(%)"]``: every column name ends with its unit in parentheses."""
    names: List[str] = []
    words: List[str] = []
    for word in line.split():
        words.append(word)
        if word.endswith(")"):
            names.append(" ".join(words))
            words = []
    return names


def parse_watch(text: str) -> List[WatchSample]:
    """``npu-smi info watch [-i N] [-s ...]``: a header of column names, then one line of
    numbers per device and refresh. Lines with another number of values are skipped."""
    out: List[WatchSample] = []
    if not isinstance(text, str):
        return out
    names: List[str] = []
    for line in text[:MAX_TEXT].splitlines()[:MAX_LINES]:
        s = line.strip()
        if "npuid" in s.lower() and "(" in s:
            names = _watch_columns(s)
            continue
        words = s.split()
        if not names or len(words) != len(names) or _int(words[0]) is None:
            continue
        values = {name: _float(word) for name, word in zip(names, words)}
        key = {n.lower().split("(")[0].replace(" ", ""): n for n in names}
        chip = values.get(key.get("chipid", ""))
        out.append(
            WatchSample(
                npu=int(words[0]),
                chip=int(chip) if chip is not None else None,
                power_w=values.get(key.get("pwr", "")),
                temp_c=values.get(key.get("temp", "")),
                aicore_percent=values.get(key.get("aicore", "")),
                values=values,
            )
        )
        if len(out) >= MAX_SAMPLES:
            break
    return out


@dataclass
class TopoMatrix:
    """``npu-smi info -t topo``: how each pair of NPUs is linked, and each NPU's CPU affinity.

    ``npus`` are the header's names in order (``"NPU0"``...), ``rows`` the row names as
    printed, ``links[i][j]`` the kind row ``i`` prints under ``npus[j]`` (``"X"`` for itself,
    ``"HCCS"``, ``"PIX"``, ``"SYS"``...), ``affinity[i]`` the row's CPU list (``"144-167"``) or
    ``None`` where the header has no affinity column or the row leaves it out, ``legend`` the
    kinds the Legend explains.
    """

    npus: List[str] = field(default_factory=list)
    rows: List[str] = field(default_factory=list)
    links: List[List[str]] = field(default_factory=list)
    affinity: List[Optional[str]] = field(default_factory=list)
    legend: Dict[str, str] = field(default_factory=dict)


_TOPO_NAME = re.compile(r"^[A-Za-z]{1,12}\d{1,4}$")
_TOPO_KIND = re.compile(r"^[A-Z][A-Z0-9_-]{0,15}$")  # X, HCCS, PIX, PXB, PHB, SYS, NA, SIO...
_LEGEND = re.compile(r"^\s{0,8}([A-Za-z][A-Za-z_-]{0,15})\s{0,8}=\s{0,8}(\S[^\n]{0,200})$")


def _topo_header(line: str) -> Optional[Tuple[List[str], bool]]:
    """``"\t   NPU0  NPU1 ... CPU Affinity"`` -> (["NPU0", "NPU1", ...], True): device names
    (letters then digits), then optionally the words ``CPU Affinity``."""
    words = line.split()
    affinity = len(words) >= 2 and [w.lower() for w in words[-2:]] == ["cpu", "affinity"]
    names = words[:-2] if affinity else words
    if not names or not all(_TOPO_NAME.match(w) for w in names):
        return None
    if not affinity and len(names) < 2:
        return None
    return names, affinity


def parse_topo(text: str) -> TopoMatrix:
    """Parse ``npu-smi info -t topo``: a header of device names (and ``CPU Affinity``),
    then one row per device: its name (one of the header's), one link kind per header name
    (upper case, as the Legend spells them), and its CPU list.

    The matrix is read by the header's names, wherever it sits in the text (after a prompt,
    behind a tab); rows of another width are skipped; the Legend's ``KIND = meaning``
    lines are kept. Bounded like the other readers."""
    out = TopoMatrix()
    if not isinstance(text, str):
        return out
    names: List[str] = []
    has_affinity = False
    for line in text[:MAX_TEXT].splitlines()[:MAX_LINES]:
        head = _topo_header(line) if not out.rows else None
        if head is not None:  # the last header before the first row is the matrix's
            names, has_affinity = head[0][:MAX_CHIPS], head[1]
            out.npus = list(names)
            continue
        if not names:
            continue
        legend = _LEGEND.match(line)
        if legend:
            out.legend[legend.group(1)] = legend.group(2).strip()
            continue
        words = line.split()
        if len(words) < len(names) + 1 or words[0] not in names:
            continue
        kinds = words[1 : len(names) + 1]
        if not all(_TOPO_KIND.match(k) for k in kinds):
            continue
        rest = words[len(names) + 1 :]
        if len(out.rows) < MAX_CHIPS:
            out.rows.append(words[0])
            out.links.append(kinds)
            out.affinity.append(" ".join(rest) if has_affinity and rest else None)
    return out


def kind_of(text: str) -> str:
    """What an npu-smi text is: "info" (the chip table), "map" (``-m``), "list" (``-l``),
    "watch" (``info watch``), "topo" (``-t topo``), "values" (``-t TYPE``: ``Key : Value``
    lines), "failure" (a failure npu-smi printed instead), or "unknown"."""
    if not isinstance(text, str):
        return "unknown"
    if parse_info(text).has_table:
        return "info"
    if parse_map(text):
        return "map"
    if parse_list(text).total is not None:
        return "list"
    if parse_watch(text):
        return "watch"
    if parse_topo(text).rows:
        return "topo"
    if failure_of(text) is not None:
        return "failure"
    if parse_key_values(text):
        return "values"
    return "unknown"


# npu-smi's keys: words, units in parentheses, a few signs ("HBM Capacity(MB)", "Temperature
# (C)", "LM75A_TE (C)", "NPU Real-time Power(W)", "mac addr"). A shell prompt or a log stamp
# before a colon ("root@host:~# ...", "2026-06-15T10:05:21Z") is not a key.
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9 _()./%+\[\],&'-]{0,79}$")


def _key_value_lines(text: str) -> List[Tuple[str, str]]:
    """``(key, value)`` pairs in order, a continued value already joined to its key."""
    out: List[Tuple[str, str]] = []
    if not isinstance(text, str):
        return out
    last = False  # the previous line was a key's (a continuation may follow)
    value_col = 0
    for raw in text[:MAX_TEXT].splitlines()[:MAX_LINES]:
        if not raw.strip():
            last = False
            continue
        indent = len(raw) - len(raw.lstrip())
        key, sep, value = raw.partition(":")
        if last and out and indent > 0 and (not sep or indent >= value_col - 1):
            k, v = out[-1]
            out[-1] = (k, (v + " " + raw.strip()).strip())
            continue
        key = key.strip()
        if not sep or not _KEY.match(key):
            last = False
            continue
        out.append((key, value.strip()))
        last = True
        value_col = len(raw) - len(value.lstrip()) if value.strip() else len(raw)
        if len(out) >= MAX_LINES:
            break
    return out


def parse_key_values(text: str) -> Dict[str, str]:
    """Parse ``Key : Value`` lines (``npu-smi info -t board|usages|health|memory|...``).

    Keys keep npu-smi's spelling (``"HBM Capacity(MB)"``); blank and odd lines are skipped,
    and so is a prompt or log stamp before a colon. A line indented to the previous value
    (``-t health``'s long ``Error Information``) or without a colon under a value continues
    that value. A key printed again (one block per chip) keeps its last value; see
    :func:`parse_key_value_records` for each block.
    """
    return dict(_key_value_lines(text))


def parse_key_value_records(text: str) -> List[Dict[str, str]]:
    """The ``Key : Value`` lines in blocks: a key printed a second time starts the next
    block (``-t usages -i N`` on a board with two chips prints ``Chip ID``... twice). The
    keys before the first repeat (``NPU ID``, ``Chip Count``) belong to the first block."""
    records: List[Dict[str, str]] = []
    current: Dict[str, str] = {}
    for key, value in _key_value_lines(text):
        if key in current:
            records.append(current)
            current = {}
            if len(records) >= MAX_CHIPS:
                return records
        current[key] = value
    if current:
        records.append(current)
    return records


def parse_board(text: str) -> Dict[str, str]:
    """``npu-smi info -t board -i N``: software/firmware version, bus, chip count…"""
    return parse_key_values(text)


def parse_usages(text: str) -> Dict[str, str]:
    """``npu-smi info -t usages -i N``: HBM/DDR capacity and usage rates."""
    return parse_key_values(text)


def parse_health(text: str) -> Dict[str, str]:
    """``npu-smi info -t health -i N -c C``: health status, error code and text."""
    return parse_key_values(text)
