"""CANN's own error-log messages, read from CANN's public source, and which doctor rule reads them.

    python scripts/cann_message_table.py --extract MIRRORS_DIR   # read the snapshots
    python scripts/cann_message_table.py                          # check the mapped templates
    python scripts/cann_message_table.py --list AREA              # one area's templates, as read

Most pasted Ascend failures carry CANN's own plog lines: the runtime's ``[ERROR] RUNTIME(...)``
(and ACL's ``ASCENDCL``, TSD's ``TDT``), GE's ``[ERROR] GE(...)``, HCCL's ``[ERROR] HCCL(...)``,
the driver's ``[ERROR] DRV(...)``.

Stage 1 (``--extract``) reads git snapshots (as the ``fetch`` tool brings them, under
``MIRRORS_DIR/<owner>+<name>/repo``: hicann/runtime, hicann/ge, hicann/hccl, hicann/driver) and
records the format string of every error-level log call: the runtime's ``RT_LOG(RT_LOG_ERROR,
...)``, ``RT_LOG_INNER_MSG`` / ``RT_LOG_OUTER_MSG`` / ``RT_LOG_CALL_MSG``, ``COND_RETURN_ERROR*``,
``DRV_ERROR_PROCESS``, ``TSD_ERROR``, ACL's ``ACL_LOG_*ERROR``; GE's ``GELOGE``,
``REPORT_INNER_ERR_MSG`` / ``REPORT_CALL_ERROR``; HCCL's ``HCCL_ERROR``; the driver's user-space
(``src/ascend_hal``) ``*_err`` / ``*_ERR`` macros. A template is the call's first run of adjacent
string literals (an error code literal such as ``"E19999"`` skipped), printf slots ``%s/%d/%u...``
kept as they are (``PRIu64`` and its kin become ``llu``). The table
(``error_tables/cann_messages.json``) keeps facts only: module, area, template, one file, the
snapshot.

Stage 2 (default) is the review: ``error_tables/cann_message_map.json`` (by hand, after reading
the templates) says which templates have one meaning that a doctor topic names. Each mapped
template is filled with illustrative values, printed as a plog line of its module and run through
the doctor. A mapped template read with another topic, or not read, is an error (exit 1); an
unmapped template that the doctor reads with a topic is counted (a rule that claims it must mean
it: the test checks that the rules this table's review added claim none).
"""

import json
import os
import re
import sys
from collections import Counter, OrderedDict
from typing import Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TABLE = os.path.join(HERE, "error_tables", "cann_messages.json")
MAP_FILE = os.path.join(HERE, "error_tables", "cann_message_map.json")
sys.path.insert(0, HERE)
from message_table_io import cli_main, write_table  # noqa: E402
from mindspore_message_table import _git  # noqa: E402 - the same git reader

RT_MACROS = (
    r"RT_LOG|RT_LOG_INNER_MSG|RT_LOG_OUTER_MSG\w*|RT_LOG_CALL_MSG|RT_LOG_INNER_DETAIL_MSG|"
    r"RT_LOG_ERROR|COND_RETURN_ERROR\w*|COND_PROC_RETURN_ERROR\w*|COND_LOG_ERROR|"
    r"COND_GOTO_ERROR\w*|COND_RETURN_EXT_ERRCODE_AND_MSG_OUTER\w*|DRV_ERROR_PROCESS|"
    r"REPORT_INNER_ERROR|REPORT_CALL_ERROR|STREAM_REPORT_ERR_MSG|TSD_ERROR|"
    r"ACL_LOG_ERROR|ACL_LOG_INNER_ERROR|ACL_LOG_CALL_ERROR"
)
# What is read of each snapshot: (module, owner+name, paths, paths skipped, macros).
SOURCES = [
    ("RUNTIME", "hicann+runtime", ["src/runtime"], r"/tests?/|_stub|/ut/|/st/", RT_MACROS),
    ("ASCENDCL", "hicann+runtime", ["src/acl"], r"/tests?/|_stub|/ut/|/st/", RT_MACROS),
    ("TDT", "hicann+runtime", ["src/tsd"], r"/tests?/|_stub|/ut/|/st/", RT_MACROS),
    (
        "GE",
        "hicann+ge",
        ["api", "base", "compiler", "graph_metadef", "parser", "runtime", "dflow"],
        r"/tests?/|_stub|/ut/|/st/|/examples?/",
        r"GELOGE|REPORT_INNER_ERR_MSG|REPORT_CALL_ERROR|REPORT_INNER_ERROR",
    ),
    ("HCCL", "hicann+hccl", ["src"], r"/tests?/|/examples?/", r"HCCL_ERROR|RPT_INPUT_ERR"),
    (
        "DRV",
        "hicann+driver",
        ["src/ascend_hal"],
        r"/tests?/|/ut/|/st/",
        r"DRV_ERR|[a-z][a-z0-9]*(?:_[a-z0-9]+)*_err|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_ERR",
    ),
]
SOURCE_FILE = re.compile(r"\.(?:c|cc|cpp|h|hpp)$")
RT_NOT_ERROR = re.compile(r"^(?:RT_LOG|RT_LOG_INNER_MSG)$")

# Areas, by the file's path and the module (first match wins); otherwise the module's "other".
AREAS = [
    ("memory", r"mem|malloc|alloc|svm|buff|mbuf"),
    ("stream-event", r"stream|event|notify"),
    ("task-exception", r"task|stars|exception|error_report|ffts|aicore|aicpu|kernel_launch|launch"),
    ("device", r"device|devmng|dev_mon|devdrv|dms|hdc|context|ctx"),
    ("model", r"model|om2|load|serializ|helper|mdl"),
    ("graph-build", r"graph|pass|build|optimi|partition|preprocess|label|fusion|infer"),
    ("parser", r"parser|onnx|caffe|tensorflow|atc|omg"),
    ("op-kernel", r"kernel|op_|ops/|tiling|engine|single_op"),
    ("collective", r"comm|hccl|hcom|channel|link|socket|topo|rank|transport"),
    ("package", r"package|tsd|client|profile|dump"),
]

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.){0,3000})"')
ERROR_CODE_LITERAL = re.compile(r"^[A-Z]{1,2}[0-9][0-9A-Z]{3,4}$")
PRI = re.compile(r"^\s*PRI([diouxX])(8|16|32|64|PTR|MAX)\s*$")


def area_of(path: str) -> str:
    low = path.lower()
    for name, pat in AREAS:
        if re.search(pat, low.rsplit("/", 2)[-2] + "/" + low.rsplit("/", 1)[-1]):
            return name
    for name, pat in AREAS:
        if re.search(pat, low):
            return name
    return "other"


def call_args(text: str, start: int) -> str:
    """The text between the parenthesis at ``start`` and the one that closes it (strings and
    character literals skipped), at most 4000 characters."""
    depth = 0
    i = start
    end = min(len(text), start + 4000)
    while i < end:
        c = text[i]
        if c == '"':
            m = LITERAL.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c == "'":
            i = text.find("'", i + 2) + 1 if text[i + 1 : i + 2] != "\\" else i + 4
            if i <= 0:
                break
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
        i += 1
    return text[start + 1 : end]


def format_string(args: str) -> Optional[str]:
    """The call's format: its first run of adjacent string literals (an error-code literal such
    as "E19999" skipped), with PRIu64 and its kin joined in as 'llu'."""
    lits = list(LITERAL.finditer(args))
    k = 0
    while k < len(lits) and ERROR_CODE_LITERAL.match(lits[k].group(1)):
        k += 1
    if k >= len(lits):
        return None
    parts = [lits[k].group(1)]
    for a, b in zip(lits[k:], lits[k + 1 :]):
        gap = args[a.end() : b.start()]
        pri = PRI.match(gap)
        if pri:
            parts.append("ll" + pri.group(1))
        elif gap.strip():
            break
        parts.append(b.group(1))
    text = "".join(parts)
    text = text.replace('\\"', '"').replace("\\n", " ").replace("\\t", " ").replace("\\\\", "\\")
    return re.sub(r"\s{2,}", " ", text).strip()


def log_calls(git_dir: str, commit: str, paths, skip: str, macros: str) -> Iterator[Tuple]:
    """(file, macro, the call's arguments) of every call of one of ``macros`` in the snapshot's
    C/C++ files under ``paths`` (files matching ``skip``, #define and comment lines left out)."""
    start = re.compile(r"\b(" + macros + r")\s*\(")
    grep = r"\b(" + macros.replace("(?:", "(") + r")\s*\("  # git grep -E has no (?:
    hits = _git(git_dir, "grep", "-l", "-E", grep, commit, "--", *paths)
    for hit in hits.splitlines():
        path = hit.split(":", 1)[1]
        if re.search(skip, "/" + path) or not SOURCE_FILE.search(path):
            continue
        text = _git(git_dir, "show", commit + ":" + path)
        for m in start.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if text[line_start : m.start()].lstrip().startswith(("#define", "//", "*")):
                continue
            yield path, m.group(1), call_args(text, m.end() - 1)


def extract(git_dir: str, commit: str, module: str, paths, skip, macros) -> Iterator[Dict]:
    for path, macro, args in log_calls(git_dir, commit, paths, skip, macros):
        if RT_NOT_ERROR.match(macro) and not re.match(r"\s*RT_LOG_ERROR\b", args):
            continue
        if module == "DRV" and macro.lower().endswith("strerror"):
            continue
        fmt = format_string(args)
        if not fmt or len(re.findall(r"[A-Za-z]{3,}", fmt)) < 2:
            continue
        yield {"template": fmt, "macro": macro, "file": path, "area": area_of(path)}


def do_extract(mirrors: str) -> int:
    snapshots: List[Dict] = []
    table: Dict[Tuple[str, str, str], Dict] = OrderedDict()
    for module, name, paths, skip, macros in SOURCES:
        git_dir = os.path.join(mirrors, name, "repo")
        commit = _git(git_dir, "rev-parse", "HEAD^{commit}").strip()
        repo = name.replace("+", "/")
        if not any(s["repo"] == repo for s in snapshots):
            date = _git(git_dir, "log", "-1", "--format=%cs", commit).strip()
            snapshots.append({"repo": repo, "commit": commit, "date": date})
        index = [s["repo"] for s in snapshots].index(repo)
        n = 0
        for row in extract(git_dir, commit, module, paths, skip, macros):
            key = (module, row["area"], row["template"])
            if key not in table:
                table[key] = dict(row, module=module, snapshot=index)
            n += 1
        print(f"{module:9} {repo} {commit[:10]}: {n} calls")
    rows = sorted(table.values(), key=lambda r: (r["module"], r["area"], r["template"]))
    head = OrderedDict(
        [
            ("format", "ascend-lab.cann-messages/1"),
            (
                "description",
                "Error-log templates CANN prints, read from its public source by "
                "scripts/cann_message_table.py --extract. Facts only: the module whose plog "
                "prefix prints it, an area (by the file's path), the macro, the format string "
                "(printf slots kept), one file that prints it, and the snapshot (an index into "
                "'snapshots').",
            ),
            ("snapshots", snapshots),
            ("columns", ["module", "area", "macro", "template", "file", "snapshot"]),
        ]
    )
    write_table(
        TABLE,
        head,
        [[r[k] for k in ("module", "area", "macro", "template", "file", "snapshot")] for r in rows],
    )
    print(f"{len(rows)} templates -> {os.path.relpath(TABLE, REPO)}")
    for module in sorted({r["module"] for r in rows}):
        per = Counter(r["area"] for r in rows if r["module"] == module)
        print(f"  {module}: " + ", ".join(f"{k} {v}" for k, v in sorted(per.items())))
    return 0


# ---------------------------------------------------------------------------------------
# Stage 2: the reviewed mapping, filled, printed as a plog line, read by the doctor.
# ---------------------------------------------------------------------------------------


def read_table(path: str = TABLE) -> List[Dict]:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return [dict(zip(data["columns"], row)) for row in data["messages"]]


def read_map(path: str = MAP_FILE) -> List[Dict]:
    """The reviewed mapping: dicts with module, pattern (a regex on the template), topic, and
    optionally the areas it is limited to."""
    with open(path, encoding="utf-8") as fh:
        return list(json.load(fh)["map"])


def topic_of(row: Dict, mapping: List[Dict]) -> Optional[str]:
    for m in mapping:
        if m.get("areas") and row["area"] not in m["areas"]:
            continue
        if m["module"] == row["module"] and re.search(m["pattern"], row["template"]):
            return m["topic"]
    return None


SLOT = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?([diouxXcspfeEgG%])")
# Illustrative values for %s, chosen by the last word before the slot.
S_FILL = [
    (r"path|file|dir|directory|so|lib|library", "/usr/local/Ascend/ascend-toolkit/latest/lib64"),
    (r"ip|addr|address|host", "192.168.1.10"),
    (r"type|dtype", "DT_FLOAT16"),
    (r"shape|dims?", "[32, 3, 224, 224]"),
    (r"ver|version", "8.0.RC2"),
]


def fill(template: str) -> str:
    """The template with each printf slot replaced by a value of its conversion."""
    out = []
    last = 0
    for m in SLOT.finditer(template):
        out.append(template[last : m.start()])
        conv = m.group(1)
        if conv == "%":
            value = "%"
        elif conv == "s":
            words = re.findall(r"[a-z]+", template[max(0, m.start() - 30) : m.start()].lower())
            value = "Conv2D_1"
            if words:
                value = next((v for p, v in S_FILL if re.fullmatch(p, words[-1])), value)
        elif conv in "xX":
            value = "0x400" if "#" in m.group(0) else "400"
        elif conv == "p":
            value = "0x12c0c0014000"
        elif conv in "feEgG":
            value = "1.5"
        elif conv == "c":
            value = "a"
        else:  # a number: an id is 0, a count or code 1024 (no code of CANN's tables)
            words = re.findall(r"[a-z_]+", template[max(0, m.start() - 12) : m.start()].lower())
            value = "0" if words and re.search(r"id$", words[-1]) else "1024"
        out.append(value)
        last = m.end()
    out.append(template[last:])
    return "".join(out)


STAMP = "(12345,python):2026-01-01-10:00:00.000.000 [{file}:123]"
PREFIX = {
    "RUNTIME": "[ERROR] RUNTIME" + STAMP + "12345 {func}: ",
    "ASCENDCL": "[ERROR] ASCENDCL" + STAMP + "12345 {func}: ",
    "TDT": "[ERROR] TDT" + STAMP + "[{func}][tid:12345] ",
    "GE": "[ERROR] GE" + STAMP + "12345 {func}: ErrorNo: 4294967295(failed) ",
    "HCCL": "[ERROR] HCCL" + STAMP + " [12345]",
    "DRV": "[ERROR] DRV" + STAMP + "12345 {func}: ",
}


def log_line(row: Dict) -> str:
    """A template as its module's plog prints it: the prefix, then the filled format."""
    base = row["file"].rsplit("/", 1)[-1]
    return PREFIX[row["module"]].format(file=base, func="Run") + fill(row["template"])


def _first(diag) -> Tuple[Optional[str], str]:
    """(first topic, entry id) of the first finding, as a reader sees it (as measure_corpus)."""
    for f in diag.findings:
        entry = getattr(f, "entry", None)
        topics = getattr(entry, "topics", None) or f.topics
        return (topics[0] if topics else None), str(getattr(entry, "id", ""))
    return None, ""


def do_check(list_area: Optional[str]) -> int:
    rows = read_table()
    mapping = read_map()
    sys.path.insert(0, REPO)
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    if list_area:
        for r in rows:
            if r["area"] == list_area or r["module"] == list_area:
                shown = _first(diagnose(log_line(r)))[0] or ""
                print(f"{r['module']:8} {shown:18} {r['template'][:200]}")
        return 0
    return check_mapped(
        rows, lambda r: r["module"] + " " + r["area"], lambda r: topic_of(r, mapping), log_line
    )


def check_mapped(rows: List[Dict], group_of, topic_for, text_of) -> int:
    """Read each mapped row's text (``text_of``) with the doctor; print the rows read with
    another topic than ``topic_for`` says, and the counts per ``group_of``; 1 if any was."""
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    per: Dict[str, Counter] = {}
    errors = 0
    for r in rows:
        c = per.setdefault(group_of(r), Counter())
        c["extracted"] += 1
        topic = topic_for(r)
        if not topic:
            continue
        c["mapped"] += 1
        first = _first(diagnose(text_of(r)))[0]
        if first == topic:
            c["read right"] += 1
        else:
            errors += 1
            word = "WRONG" if first else "unread"
            print(f"{word} {group_of(r)}: {r['template'][:140]} -> {first} (mapped {topic})")
    total: Counter = Counter()
    for key in sorted(per) + ["all"]:
        c = per.get(key, total)
        total.update(c if key != "all" else {})
        print(
            f"{key:26} extracted {c['extracted']:5}  mapped {c['mapped']:4}  "
            f"read right {c['read right']:4}"
        )
    return 1 if errors else 0


def main(argv: Optional[List[str]] = None) -> int:
    return cli_main(__doc__, do_extract, do_check, "AREA", argv)


if __name__ == "__main__":
    sys.exit(main())
