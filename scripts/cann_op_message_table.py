"""The error messages of CANN's open operators (aclnn, tiling, infershape), read from their source,
and which of them the doctor reads as an operator that refused its inputs.

    python scripts/cann_op_message_table.py --extract MIRRORS_DIR  # read the snapshots
    python scripts/cann_op_message_table.py                         # check the mapped templates
    python scripts/cann_op_message_table.py --list STAGE            # one stage's templates, as read

When an aclnn / CANN operator refuses its inputs, torch_npu / MindSpore print ``call aclnnX
failed`` and CANN's error manager prints the operator's own check message under ``EZ9999: Inner
Error!`` (or ``EZ1001``), followed by ``[FUNC:..][FILE:..][LINE:..]``. Those messages come from the
operators' host code in CANN's open operator repositories (hicann/ops-transformer, ops-nn,
ops-math, ops-cv): the aclnn API's parameter checks (``op_api``), the tiling functions and the
infershape functions.

Stage 1 (``--extract``) reads the git snapshots (as the ``fetch`` tool brings them, under
``MIRRORS_DIR/<owner>+<name>/repo``) and records the format string of every error-level log
call: ``OP_LOGE`` (including its uses inside ``OP_CHECK_IF`` / ``OP_TILING_CHECK`` and the shared
``OP_CHECK_DTYPE_NOT_SUPPORT`` ... macros), ``OPS_LOG_E``, ``VECTOR_INNER_ERR_REPORT_TILING``,
``OPS_REPORT_VECTOR_INNER_ERR``, ``CUBE_INNER_ERR_REPORT``, ``VECTOR_INFER_SHAPE_INNER_ERR_REPORT``;
as scripts/cann_message_table.py reads CANN's other modules (its call and format-string readers are
reused). A template is the call's first run of adjacent string literals that is a sentence (an op
name literal before it is skipped). Tests, examples, docs, stubs and device kernels are not read.
The table (``error_tables/cann_op_messages.json``) keeps facts only: the stage (by the file's
path), the macro, the template, one file that prints it, the snapshot.

Stage 2 (default): ``error_tables/cann_op_message_map.json`` (by hand) says, by grammar, which
templates are an operator's check of its inputs (topic op-input-check) and which say something
else (e.g. HCCL_BUFFSIZE too small: comm-memory). Each mapped template is filled with illustrative
values, printed as CANN's error manager prints it under ``EZ9999: Inner Error!`` (without the
``[FUNC:][FILE:]`` tail, so that the words are read and not the file's name) and run through the
doctor; a mapped template read with another topic first is an error (exit 1).
"""

import os
import re
import sys
from collections import Counter, OrderedDict
from typing import Dict, Iterator, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TABLE = os.path.join(HERE, "error_tables", "cann_op_messages.json")
MAP_FILE = os.path.join(HERE, "error_tables", "cann_op_message_map.json")
sys.path.insert(0, HERE)
from cann_message_table import (  # noqa: E402 - the readers CANN's other modules use
    LITERAL,
    _first,
    check_mapped,
    fill,
    format_string,
    log_calls,
)
from cann_message_table import read_map as read_any_map  # noqa: E402
from cann_message_table import read_table as read_any_table  # noqa: E402
from message_table_io import cli_main, write_table  # noqa: E402
from mindspore_message_table import _git  # noqa: E402 - the same git reader

REPOS = ["hicann+ops-transformer", "hicann+ops-nn", "hicann+ops-math", "hicann+ops-cv"]
MACROS = (
    r"OP_LOGE|OPS_LOG_E|VECTOR_INNER_ERR_REPORT_TILIN?G|OPS_REPORT_VECTOR_INNER_ERR|"
    r"OPS_REPORT_CUBE_INNER_ERR|CUBE_INNER_ERR_REPORT|VECTOR_INFER_SHAPE_INNER_ERR_REPORT"
)
SKIP = r"/tests?/|/examples?/|/docs?/|/stub/|/op_kernel\w*/|/ut/|/st/|_test\.|/experimental/"
# Stages, by the file's path (first match wins).
STAGES = [
    ("aclnn", r"/op_api/|aclnn"),
    ("tiling", r"tiling"),
    ("infershape", r"infershape|infer_shape|_proto|infer_"),
]
NAME_LITERAL = re.compile(r"^[\w.:<>-]{1,80}$")


def stage_of(path: str) -> str:
    low = "/" + path.lower()
    return next((name for name, pat in STAGES if re.search(pat, low)), "host")


def op_format(args: str) -> Optional[str]:
    """The message of a log call: its first run of adjacent literals, or (when the first literal
    is the op's name, ``OP_LOGE("FlashAttention", "...")``) the run after it."""
    lits = list(LITERAL.finditer(args))
    if len(lits) > 1 and NAME_LITERAL.match(lits[0].group(1)):
        gap = args[lits[0].end() : lits[1].start()]
        if gap.strip() == ",":
            return format_string(args[lits[0].end() :])
    return format_string(args)


def extract(git_dir: str, commit: str) -> Iterator[Dict]:
    for path, macro, args in log_calls(git_dir, commit, ["."], SKIP, MACROS):
        fmt = op_format(args)
        if fmt and len(re.findall(r"[A-Za-z]{3,}", fmt)) >= 2:
            yield {"template": fmt, "macro": macro, "file": path, "stage": stage_of(path)}


def do_extract(mirrors: str) -> int:
    snapshots: List[Dict] = []
    table: Dict = OrderedDict()
    for index, name in enumerate(REPOS):
        git_dir = os.path.join(mirrors, name, "repo")
        commit = _git(git_dir, "rev-parse", "HEAD^{commit}").strip()
        date = _git(git_dir, "log", "-1", "--format=%cs", commit).strip()
        snapshots.append({"repo": name.replace("+", "/"), "commit": commit, "date": date})
        n = 0
        for row in extract(git_dir, commit):
            key = (row["stage"], row["template"])
            if key not in table:
                table[key] = dict(row, snapshot=index)
            n += 1
        print(f"{name} {commit[:10]}: {n} calls")
    rows = sorted(table.values(), key=lambda r: (r["stage"], r["template"]))
    head = OrderedDict(
        [
            ("format", "ascend-lab.cann-op-messages/1"),
            (
                "description",
                "Error messages of CANN's open operators (aclnn parameter checks, tiling, "
                "infershape), read from their public source by scripts/cann_op_message_table.py "
                "--extract. Facts only: the stage (by the file's path), the macro, the format "
                "string (printf slots kept), one file that prints it, and the snapshot (an index "
                "into 'snapshots').",
            ),
            ("snapshots", snapshots),
            ("columns", ["stage", "macro", "template", "file", "snapshot"]),
        ]
    )
    write_table(
        TABLE,
        head,
        [[r[k] for k in ("stage", "macro", "template", "file", "snapshot")] for r in rows],
    )
    print(f"{len(rows)} templates -> {os.path.relpath(TABLE, REPO)}")
    per = Counter((r["snapshot"], r["stage"]) for r in rows)
    for (i, stage), n in sorted(per.items()):
        print(f"  {snapshots[i]['repo']:24} {stage:10} {n}")
    return 0


# ---------------------------------------------------------------------------------------
# Stage 2: the reviewed mapping, filled, printed under EZ9999, read by the doctor.
# ---------------------------------------------------------------------------------------


def read_table(path: str = TABLE) -> List[Dict]:
    return read_any_table(path)


def read_map(path: str = MAP_FILE) -> List[Dict]:
    """The reviewed mapping: dicts with pattern (a regex on the template), topic, and optionally
    the stages it is limited to; first match wins."""
    return read_any_map(path)


def topic_of(row: Dict, mapping: List[Dict]) -> Optional[str]:
    for m in mapping:
        if m.get("stages") and row["stage"] not in m["stages"]:
            continue
        if re.search(m["pattern"], row["template"]):
            return m["topic"]
    return None


def ez_text(row: Dict) -> str:
    """A template as CANN's error manager prints it when the aclnn call fails under torch_npu."""
    msg = fill(row["template"])
    return (
        "RuntimeError: call aclnnSample failed, detail:EZ9999: Inner Error!\n"
        "EZ9999: [PID: 12345] 2026-01-01-10:00:00.000.000 " + msg + "\n"
        "        TraceBack (most recent call last):\n"
    )


def do_check(list_stage: Optional[str]) -> int:
    rows = read_table()
    mapping = read_map()
    sys.path.insert(0, REPO)
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    if list_stage:
        for r in rows:
            if r["stage"] == list_stage or list_stage == "all":
                shown = _first(diagnose(ez_text(r)))[0] or ""
                mapped = topic_of(r, mapping) or ""
                print(f"{mapped:16} {shown:18} {r['template'][:200]}")
        return 0
    return check_mapped(rows, lambda r: r["stage"], lambda r: topic_of(r, mapping), ez_text)


def main(argv: Optional[List[str]] = None) -> int:
    return cli_main(__doc__, do_extract, do_check, "STAGE", argv)


if __name__ == "__main__":
    sys.exit(main())
