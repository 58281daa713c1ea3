"""MindSpore's own error messages, read from MindSpore's source, and which doctor rule reads them.

    python scripts/mindspore_message_table.py --extract MIRROR_GIT_DIR:REF [...]
    python scripts/mindspore_message_table.py [--check]  # check the mapped templates
    python scripts/mindspore_message_table.py --list AREA  # one area's templates, as read

Stage 1 (``--extract``) reads a git snapshot of MindSpore (a git directory without work tree, as the
``fetch`` tool brings it; several snapshots and refs may be given) and records the message templates
the framework raises in the areas a learner meets first: C++ ``MS_LOG(EXCEPTION)``,
``MS_EXCEPTION(XError)``, ``MS_EXCEPTION_IF_CHECK_FAIL``, ``MS_LOG(ERROR)`` and minddata's
``RETURN_STATUS_UNEXPECTED``/``RETURN_STATUS_SYNTAX_ERROR``, Python ``raise XError(...)``. Each
template keeps its literal text; what the code streams or formats into it becomes ``{}``. The table
(``scripts/error_tables/mindspore_messages.json``) keeps only facts: template, exception kind, file,
the snapshots and refs it was read at, and the area.

Stage 2 (default) is the review: ``MAPPED`` below (written by hand, after reading the templates)
says which templates have one meaning a doctor topic names. Each mapped template is filled with
illustrative names (``{}`` -> a name, a number or a shape, by position) and run through the doctor;
the run prints, per area, how many templates were extracted, how many are mapped, and how many the
doctor reads with the mapped topic. A mapped template read with another topic is an error (exit 1).
Templates not mapped stay unclaimed on purpose: the doctor says nothing rather than a wrong topic.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter, OrderedDict
from typing import Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TABLE = os.path.join(HERE, "error_tables", "mindspore_messages.json")

# Source areas, by path (first match wins). Paths are those of MindSpore 1.x-2.7.
AREAS = [
    (
        "memory",
        r"mem_manager|memory_pool|mem_pool|mem_reuse|memory_manager|memory_adapter|"
        r"device_address|mem_scheduler|memory_scheduler|dynamic_mem",
    ),
    ("stream-event", r"stream|_event\.|event_"),
    ("collective", r"hccl|collective|communication|rank_table|ranktable|nccl"),
    (
        "cluster",
        r"distributed/cluster|distributed/rpc|ps/core|msrun|_cluster|"
        r"distributed/recovery|parallel/_ps|parallel/_utils",
    ),
    ("dataset", r"minddata|mindspore/dataset|mindrecord"),
    ("checkpoint", r"serialization|mindir|load_model|cxx_api/model|checkpoint|export"),
    (
        "op-select",
        r"kernel_select|kernel_query|select_kernel|kernel_build|op_adapter|"
        r"kernel_factory|kernel/kernel|ops/primitive|ops/operations|_primitive|op_selector",
    ),
    (
        "plugin-load",
        r"plugin_loader|dlopen|device_context_manager|run_check|_check_version|"
        r"_check_deps|version|lib_load|_extends/.*loader",
    ),
    (
        "device-init",
        r"hal/device|hal/hardware|runtime/hardware|ascend_kernel_runtime|"
        r"device_context|context\.py|kernel_runtime",
    ),
    (
        "graph-compile",
        r"pipeline/jit|frontend/operator|frontend/optimizer|_extends/parse|"
        r"common/api\.py|nn/cell\.py|abstract|static_analysis|pybind_api/ir|jit",
    ),
    # MindSpore 2.1+ (areas added after the ones above, so a 1.x/2.0 row keeps its area): the GE
    # backend's graph conversion and executor, the Ascend resource manager and the aclnn /
    # pyboost kernels' launch, msrun's process launcher and mint.distributed.
    (
        "ge-backend",
        r"graph_ir/|ge_backend/(?:executor|ge_backend)|graph_compiler/ge_backend|ge_graph_executor",
    ),
    (
        "ascend-runtime",
        r"res_manager/ascend/(?:ascend_res|hal_manager)|plugin/device/ascend/kernel/"
        r"(?:acl|opapi|pyboost|hccl)/|ccsrc/pyboost/pyboost_utils",
    ),
    ("msrun", r"parallel/cluster/|mint/distributed/"),
]
# Paths read at each ref (C++ and Python).
PATHS = [
    "mindspore/ccsrc",
    "mindspore/core",
    "mindspore/python/mindspore",
    "mindspore/dataset",
    "mindspore/train",
    "mindspore/common",
    "mindspore/nn",
    "mindspore/parallel",
    "mindspore/communication",
    "mindspore/_extends",
    "mindspore/context.py",
    "mindspore/_checkparam.py",
    "mindspore/run_check",
]
# Not what a learner on Ascend meets first: tests, Lite, GPU, parameter server, federated
# learning, graph-kernel fusion internals, CPU kernels' and data transforms' argument checks.
SKIP_PATH = re.compile(
    r"/(?:test|tests|lite|micro|akg|third_party|gpu|fl|ps|rewrite|numpy|scipy|"
    r"boost|compression|graph_kernel|embedding_cache)/|"
    r"/cpu/kernel/|_test\.|/kernel/(?:cpu|arrays|nnacl)|_extends/graph_kernel|"
    # dataset transforms' own argument checks (vision, text, audio ops)
    r"minddata/dataset/(?:kernels|audio|text|liteapi)/|dataset/(?:vision|text|audio)/|"
    r"minddata/dataset/api/(?:vision|text|audio|transforms)"
)

CXX_START = re.compile(
    r"MS_LOG\((?:EXCEPTION|ERROR|INTERNAL_EXCEPTION)\)|MS_EXCEPTION\(\w+\)|"
    r"MS_EXCEPTION_IF_CHECK_FAIL\(|RETURN_STATUS_UNEXPECTED\(|RETURN_STATUS_SYNTAX_ERROR\(|"
    r"RETURN_STATUS_ERROR\(|LOG_AND_RETURN_STATUS_SYNTAX_ERROR\(|RETURN_STATUS_OOM\(|"
    r"THROW_IF_ERROR\(|MS_LOG_EXCEPTION\b"
)
PY_START = re.compile(r"raise (\w+(?:Error|Exception))\(")
GREP = (
    r"MS_LOG\((EXCEPTION|ERROR|INTERNAL_EXCEPTION)\)|MS_EXCEPTION\(|MS_EXCEPTION_IF_CHECK_FAIL|"
    r"RETURN_STATUS_(UNEXPECTED|SYNTAX_ERROR|ERROR|OOM)|raise [A-Za-z]+(Error|Exception)\("
)
STRING = re.compile(r'(f|r|fr|rf|R|F)?("(?:[^"\\\n]|\\.){0,2000}"|\'(?:[^\'\\\n]|\\.){0,2000}\')')
FORMAT_FIELD = re.compile(r"\{[^{}\n]{1,200}\}")


def area_of(path: str, message: str) -> Optional[str]:
    for name, pat in AREAS:
        if re.search(pat, path):
            return name
    return None


def _git(git_dir: str, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", git_dir] + list(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return out.stdout.decode("utf-8", "replace")


def _statement(lines: List[str], i: int, python: bool) -> str:
    """The statement starting at line i: up to its ';' (C++) or its closing parenthesis (Python)."""
    text = ""
    for j in range(i, min(i + 14, len(lines))):
        text += lines[j].strip() + " "
        if python:
            opened = text.count("(") - text.count(")")
            if opened <= 0 and "raise" in text:
                break
        elif lines[j].rstrip().endswith(";"):
            break
    return text


def _template(stmt: str, python: bool) -> Tuple[str, str]:
    """(kind, template) of one statement: literals kept, what is put between them -> {}."""
    if python:
        m = PY_START.search(stmt)
        kind = m.group(1) if m else "Error"
        body = stmt[m.end() :] if m else stmt
    else:
        m = CXX_START.search(stmt)
        word = m.group(0) if m else ""
        k = re.search(r"MS_EXCEPTION\((\w+)\)", word)
        kind = k.group(1) if k else ("ERROR log" if "ERROR)" in word else "RuntimeError")
        body = stmt[m.end() :] if m else stmt
    parts: List[str] = []
    last = 0
    for s in STRING.finditer(body):
        gap = body[last : s.start()]
        if parts and re.search(r"[A-Za-z0-9_\]\)]", gap.replace("std::endl", "")):
            if not re.fullmatch(r"\s*(?:<<|\+|,)?\s*", gap):
                parts.append("{}")
        lit = s.group(2)[1:-1]
        lit = lit.replace('\\"', '"').replace("\\'", "'").replace("\\n", " ").replace("\\t", " ")
        if s.group(1) and "f" in s.group(1).lower():
            lit = FORMAT_FIELD.sub("{}", lit)
        elif ".format(" in body[s.end() : s.end() + 9] or "%" in body[s.end() : s.end() + 4]:
            lit = FORMAT_FIELD.sub("{}", re.sub(r"%[sdfr]", "{}", lit))
        parts.append(lit)
        last = s.end()
    tail = body[last:]
    if parts and re.search(r"<<\s*[A-Za-z_(]", tail):
        parts.append("{}")
    text = "".join(parts).replace("#umsg#Framework Error Message:#umsg#", "")
    text = re.sub(r"\s{2,}", " ", text.replace("#umsg#", " ")).strip()
    return kind, text


def extract(git_dir: str, ref: str) -> Iterator[Dict[str, str]]:
    commit = _git(git_dir, "rev-parse", ref + "^{commit}").strip()
    hits = _git(git_dir, "grep", "-l", "-E", GREP, commit, "--", *PATHS).splitlines()
    for hit in hits:
        path = hit.split(":", 1)[1]
        if SKIP_PATH.search("/" + path) or not re.search(r"\.(?:cc|h|py)$", path):
            continue
        python = path.endswith(".py")
        lines = _git(git_dir, "show", commit + ":" + path).splitlines()
        for i, line in enumerate(lines):
            if not (PY_START.search(line) if python else CXX_START.search(line)):
                continue
            kind, text = _template(_statement(lines, i, python), python)
            words = re.findall(r"[A-Za-z]{3,}", text)
            if len(words) < 3:
                continue
            area = area_of(path, text)
            if area is None:
                continue
            yield {
                "template": text,
                "kind": kind,
                "file": path,
                "area": area,
                "commit": commit,
                "ref": ref,
                "line": str(i + 1),
            }


def do_extract(specs: List[str]) -> int:
    table: Dict[str, Dict] = OrderedDict()
    snapshots = []
    for spec in specs:
        git_dir, _, ref = spec.rpartition(":")
        repo = os.path.basename(os.path.dirname(git_dir.rstrip("/"))).replace("+", "/")
        date = _git(git_dir, "log", "-1", "--format=%cs", ref).strip()
        version = _git(git_dir, "show", ref + ":version.txt").strip() or ref
        snapshots.append(
            {
                "repo": repo,
                "ref": ref,
                "date": date,
                "version": version,
                "commit": _git(git_dir, "rev-parse", ref + "^{commit}").strip(),
            }
        )
        n = 0
        for row in extract(git_dir, ref):
            key = row["area"] + "\t" + row["template"]
            entry = table.setdefault(
                key,
                {
                    "template": row["template"],
                    "kind": row["kind"],
                    "area": row["area"],
                    "file": row["file"],
                    "seen": [],
                },
            )
            tag = f"{repo}@{version}"
            if tag not in entry["seen"]:
                entry["seen"].append(tag)
            n += 1
        print(f"{repo} {ref} ({version}, {date}): {n} messages")
    rows = sorted(table.values(), key=lambda r: (r["area"], r["file"], r["template"]))
    tags = [s["repo"] + "@" + s["version"] for s in snapshots]
    head = OrderedDict(
        [
            ("format", "ascend-lab.mindspore-messages/1"),
            (
                "description",
                "Message templates MindSpore raises, read from its source by "
                "scripts/mindspore_message_table.py --extract. Facts only: the literal text of "
                "each message ({} where the code puts a value), its exception kind, one file that "
                "raises it, and the snapshots (indices into 'snapshots') it was seen in.",
            ),
            ("snapshots", snapshots),
            ("columns", ["area", "kind", "template", "file", "seen"]),
        ]
    )
    lines = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "messages": [\n'
    lines += ",\n".join(
        "  "
        + json.dumps(
            [r["area"], r["kind"], r["template"], r["file"], [tags.index(t) for t in r["seen"]]],
            ensure_ascii=False,
        )
        for r in rows
    )
    return write_table(TABLE, lines, rows)


def write_table(path: str, text: str, rows: List[Dict]) -> int:
    """Write a table's text (its head and its rows, without the closing brackets) and say what
    was written, per area."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text + "\n ]\n}\n")
    print(f"{len(rows)} templates -> {os.path.relpath(path, REPO)}")
    per_area = sorted(Counter(r["area"] for r in rows).items())
    print("per area: " + ", ".join(f"{k} {v}" for k, v in per_area))
    return 0


# ---------------------------------------------------------------------------------------
# Stage 2: the reviewed mapping. (area, regex on the template, topic). One meaning each: a
# template that can mean two things (a generic 'Launch kernel failed') is not listed.
# ---------------------------------------------------------------------------------------

MAP_FILE = os.path.join(HERE, "error_tables", "mindspore_message_map.json")


def read_map(path: str = MAP_FILE) -> List[Tuple[str, str, str]]:
    """The reviewed mapping: (area, regex on the template, topic), first match wins."""
    with open(path, encoding="utf-8") as fh:
        return [(m["area"], m["pattern"], m["topic"]) for m in json.load(fh)["map"]]


MAPPED = read_map()

# Illustrative values put in the {} of a template, chosen by the last words before it (the
# first kind, in this order, that one of the last three words names).
FILL = [
    (r"shapes?", "[32, 3, 224, 224]"),
    (r"address|context|target|backend|device", "Ascend"),
    (r"d?types?|dtypes?", "Float32"),
    (r"file|path|dir|folder|directory", "/home/user/data/train.mindrecord"),
    (r"mode|initialized", "GRAPH_MODE"),
    (
        r"size|num|number|limit|depth|id|rank|ret|count|offset|index|port|total|dynamic|pool|static|"
        r"malloc|errno|gb|mb|step|timeout|seconds|got|value",
        "1024",
    ),
    (r"node|op|kernel|operator|function|name|column|scope|group|primitive|cnode", "Conv2D"),
]
STOP = {
    "is",
    "in",
    "of",
    "the",
    "a",
    "an",
    "to",
    "at",
    "but",
    "by",
    "for",
    "be",
    "should",
    "was",
    "with",
    "and",
    "or",
    "than",
    "as",
    "are",
    "this",
    "current",
    "provided",
    "failed",
    "set",
}
COUNT = re.compile(r"\b(?:number|size|count|limit|depth|offset|num)\b")


def fill(template: str) -> str:
    """The template with each {} replaced by a value of the kind its words announce."""
    out = ""
    rest = template
    while "{}" in rest:
        before, rest = rest.split("{}", 1)
        out += before
        clause = re.split(r"[,.;]", out)[-1][-45:].lower()
        words = [w for w in re.findall(r"[a-z]+", clause) if w not in STOP]
        value = "conv1.weight"
        if re.search(r"\b(?:for|primitive\[?) ?'?$", out[-14:].lower()):
            value = "Conv2D"  # "For '{}', ...": the operator (or API) that checks its inputs
        elif COUNT.search(clause) and not re.search(r"(?:shape|type|name)\W{0,4}$", clause):
            value = "1024"
        elif words:
            value = next(
                (v for pat, v in FILL if any(re.fullmatch(pat, w) for w in words[-3:])), value
            )
        out += value
    return out + rest


def message(row: Dict) -> str:
    """A mapped template as MindSpore raises it: its exception kind (a Python exception when the
    source names one, else RuntimeError, as MS_LOG(EXCEPTION) raises) and the filled template."""
    kind = row.get("kind") or ""
    kind = (
        kind
        if re.fullmatch(r"(?:Value|Type|Index|Key|Attribute|Runtime|NotImplemented)Error", kind)
        else "RuntimeError"
    )
    return kind + ": " + fill(row["template"])


def read_table(path: str = TABLE) -> List[Dict]:
    """The table's messages as dicts (area, kind, template, file, seen)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return [dict(zip(data["columns"], row)) for row in data["messages"]]


def _first_topic(diag) -> Optional[str]:
    """The answer a reader sees first: the first finding's first topic (as measure_corpus)."""
    for f in diag.findings:
        topics = getattr(getattr(f, "entry", None), "topics", None) or f.topics
        return topics[0] if topics else None
    return None


def check_rows(rows: List[Dict], topic_of, message_of, width: int = 14) -> int:
    """Run each mapped row (``topic_of(row)`` is its topic or None) through the doctor, as
    ``message_of(row)`` prints it; print the misses and, per area, extracted / mapped / read
    right. Returns 1 when a mapped row is read with another topic, else 0."""
    sys.path.insert(0, REPO)
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    per: Dict[str, Counter] = {}
    errors = 0
    for r in rows:
        c = per.setdefault(r["area"], Counter())
        c["extracted"] += 1
        topic = topic_of(r)
        if topic is None:
            continue
        c["mapped"] += 1
        first = _first_topic(diagnose(message_of(r)))
        if first == topic:
            c["read right"] += 1
        elif first:
            errors += 1
            print(f"WRONG {r['area']}: {r['template'][:120]} -> {first} (mapped {topic})")
        else:
            print(f"unread {r['area']}: {r['template'][:140]} (mapped {topic})")
    for area in sorted(per):
        c = per[area]
        print(
            f"{area:{width}} extracted {c['extracted']:4}  mapped {c['mapped']:3}  "
            f"read right {c['read right']:3}"
        )
    return 1 if errors else 0


def list_rows(rows: List[Dict], area: str, message_of) -> int:
    """One area's templates with the topic the doctor reads first."""
    sys.path.insert(0, REPO)
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    for r in rows:
        if r["area"] == area:
            shown = _first_topic(diagnose(message_of(r))) or ""
            print(f"{r['file'][-40:]:40} {shown:16} {r['template'][:200]}")
    return 0


def mapped_topic(row: Dict) -> Optional[str]:
    """The reviewed topic of a row (first mapping of its area whose regex finds the template)."""
    for area, pat, topic in MAPPED:
        if area == row["area"] and re.search(pat, row["template"]):
            return topic
    return None


def do_check(list_area: Optional[str]) -> int:
    rows = read_table()
    if list_area:
        return list_rows(rows, list_area, message)
    return check_rows(rows, mapped_topic, message)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extract", nargs="+", metavar="GIT_DIR:REF")
    ap.add_argument("--list", metavar="AREA")
    ap.add_argument("--check", action="store_true", help="the default: check the mapped templates")
    args = ap.parse_args(argv)
    if args.extract:
        return do_extract(args.extract)
    return do_check(args.list)


if __name__ == "__main__":
    sys.exit(main())
