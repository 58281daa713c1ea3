"""Every error the MindSpore FAQ and error-analysis pages document, through the doctor.

    .venv/bin/python scripts/doc_error_sweep.py [--source mindspore|hccl|all]
        [--docs GIT_DIR] [--branches r2.0,...,master]
        [--page SUBSTRING] [--list nothing|code|named|all] [--json FILE]

The pages are the references issue #36 names ("every error the MindSpore FAQ and
error-analysis pages of 2.0-2.10 document"): ``docs/mindspore/source_{en,zh_cn}/faq/*.md`` and
``tutorials/source_{en,zh_cn}/debug/error_analysis/*.md`` of ``mindspore-ai/docs``, read from a
local clone (``fetch github:mindspore-ai/docs`` gives one) on every release branch.
``--source hccl`` reads a second set of pages: HCCL's own fault-diagnosis guide
(``docs/zh/user_guide/fault_diagnosis/*.md`` of ``hicann/hccl``, every release branch that has
it), where each documented failure shows the log lines HCCL prints; ``--source all`` both.

A snippet is an error the page shows:

- a question that quotes a message (``## Q: What can I do if an error "..." is reported?``,
  its Chinese form ``报错...“...”``): the quoted message;
- a fenced block that is not code (```text, ```bash, ``` without a language; a block marked
  as code when it holds a traceback, or a message line and no line of code) and holds an
  error line (``Error``, ``failed``, a CANN code,
  ``[ERROR]``, ``Traceback``, ``报错``).

The same text on several branches is one snippet (its first branch is named). Snippets that
the held-out half of the real-error corpus was copied from, or that are near copies of a
held-out text (:mod:`tests.doctor.heldout_guard`), are skipped and only counted, so rules
are never written from them; this holds for every source (for HCCL's pages the lines a
held-out case names are skipped on every branch, since its address may name any of them).

Each snippet goes through :func:`ascend_lab.doctor.diagnose_text`. It is ``named`` when the
first finding is a rule (a specific signature, a wrapper or a consequence), ``code`` when
only an error code is explained, ``nothing`` otherwise. Prints counts per page, and the
snippets of the kinds ``--list`` asks for. Asserts nothing.
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Dict, Iterator, List, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def _load_guard():
    """tests/doctor/heldout_guard.py, loaded from its file: code outside tests/ does not
    import the tests package (tests/lint/test_nothing_imports_tests.py)."""
    path = os.path.join(REPO, "tests", "doctor", "heldout_guard.py")
    spec = importlib.util.spec_from_file_location("heldout_guard", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_guard = _load_guard()
doc_lines_overlap = _guard.doc_lines_overlap
overlaps_heldout = _guard.overlaps_heldout

DEFAULT_DOCS = "/work/.mirror/mindspore-ai+docs/repo"
BRANCHES = ["r2.0", "r2.1", "r2.2", "r2.3.1", "r2.4.1", "r2.5.0", "r2.6.0", "master"]
PAGES = re.compile(
    r"^(?:docs/mindspore/source_(?:en|zh_cn)/faq/[a-z_]+\.md"
    r"|docs/mindspore/faq/source_(?:en|zh_cn)/[a-z_]+\.md"  # r1.3-r1.6's layout
    r"|tutorials/source_(?:en|zh_cn)/(?:debug|advanced)/error_analysis/[a-z_]+\.md"  # r2.1+
    # r1.8-r2.0: the error-analysis pages under the experts' tutorials
    r"|tutorials/experts/source_(?:en|zh_cn)/debug/"
    r"(?:error_analyze|minddata_debug|mindrt_debug|cann_error_cases|pynative_debug)\.md)$"
)
HCCL_DOCS = "/work/.mirror/hicann+hccl/repo"
HCCL_BRANCHES = ["9.1.0", "9.2.0-beta.2", "master"]
HCCL_PAGES = re.compile(r"^docs/(?:zh|en)/user_guide/fault_diagnosis/[A-Za-z0-9_]+\.md$")


@dataclass(frozen=True)
class Source:
    """A set of documentation pages: a git dir, its branches, which paths are pages, and
    whether a held-out case's lines are skipped on every branch or only on master."""

    name: str
    docs: str
    branches: List[str]
    pages: "re.Pattern[str]"
    lines_on_every_branch: bool


SOURCES = {
    "mindspore": Source("mindspore", DEFAULT_DOCS, BRANCHES, PAGES, False),
    "hccl": Source("hccl", HCCL_DOCS, HCCL_BRANCHES, HCCL_PAGES, True),
}
_QUESTION = re.compile(r"^(?:#{1,4} |<font size=3>\*\*)Q[:：]")
_QUOTED = re.compile(r"\"([^\"\n]{8,400})\"|“([^”\n]{8,400})”|`([^`\n]{12,400})`")
_ERRORISH = re.compile(
    r"Error|error|ERROR|[Ff]ailed|Traceback|Exception|\bE[A-Z0-9]\d{4}\b|报错|失败|异常"
)
_FENCE = re.compile(r"^\s*```\s*([A-Za-z0-9_+-]*)")
NOT_CODE = {"", "text", "bash", "shell", "log", "console", "none", "sh", "txt"}
# in a block marked as code (```python, ```c++): a line an error message starts with
_MESSAGE_LINE = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception|Warning)\b:?|\[(?:ERROR|CRITICAL|EXCEPTION)\]"
    r"|E[A-Z0-9]\d{4}\b|Traceback \(most recent call last\))",
    re.M,
)
_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |for |while |if |return )", re.M
)


def git(docs: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", docs, *args], capture_output=True, text=True, check=True
    ).stdout


def page_paths(docs: str, branch: str, pages: "re.Pattern[str]" = PAGES) -> List[str]:
    names = git(docs, "ls-tree", "-r", "--name-only", branch).splitlines()
    return [n for n in names if pages.match(n)]


def branch_exists(docs: str, branch: str) -> bool:
    found = subprocess.run(
        ["git", "--git-dir", docs, "rev-parse", "--verify", "--quiet", branch + "^{commit}"],
        capture_output=True,
    )
    return found.returncode == 0


def snippets(text: str) -> Iterator[Tuple[int, int, str]]:
    """(first line, last line, snippet) of every error the page shows (1-based lines)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            lang = fence.group(1).lower()
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                j += 1
            body = "\n".join(lines[i + 1 : j])
            traceback = "Traceback (most recent call last)" in body
            message = bool(_MESSAGE_LINE.search(body)) and not _CODE_LINE.search(body)
            if (lang in NOT_CODE or traceback or message) and _ERRORISH.search(body):
                yield i + 2, j, body
            i = j + 1
            continue
        if _QUESTION.match(line) and _ERRORISH.search(line):
            for found in _QUOTED.finditer(line):
                quoted = next(g for g in found.groups() if g)
                yield i + 1, i + 1, quoted
        i += 1


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def classify(text: str) -> Tuple[str, str]:
    """(``named`` | ``code`` | ``nothing``, what the doctor said first): ``named`` when the
    first finding is a rule (a knowledge-base signature), ``code`` when it explains a code."""
    from ascend_lab.doctor import diagnose_text

    diag = diagnose_text(text)
    if diag.findings:
        first = diag.findings[0]
        if first.rank == "signature":
            return "named", first.entry.id
        return "code", f"{first.rank}:{first.entry.id}"
    return "nothing", ""


def sweep(
    sources: List[Source], page_filter: str, include_heldout: bool = False
) -> Tuple[List[Dict], Counter]:
    seen: Dict[str, Dict] = OrderedDict()
    skipped: Counter = Counter()
    for source in sources:
        for branch in source.branches:
            if not branch_exists(source.docs, branch):
                print(f"({source.name}: no branch {branch}, skipped)")
                continue
            for path in page_paths(source.docs, branch, source.pages):
                if page_filter and page_filter not in path:
                    continue
                _sweep_page(source, branch, path, seen, skipped, include_heldout)
    found = [s for s in seen.values() if not s.get("skipped")]
    for item in found:
        item["reading"], item["first"] = classify(item["text"])
    return found, skipped


def _sweep_page(
    source: Source,
    branch: str,
    path: str,
    seen: Dict[str, Dict],
    skipped: Counter,
    include_heldout: bool = False,
) -> None:
    text = git(source.docs, "show", f"{branch}:{path}")
    check_lines = source.lines_on_every_branch or branch == "master"
    for first, last, body in snippets(text):
        key = _normal(body)
        if not key or key in seen:
            continue
        heldout = (check_lines and doc_lines_overlap(path, first, last)) or overlaps_heldout(body)
        if heldout and not include_heldout:
            skipped[path] += 1
            seen[key] = {"skipped": True}
            continue
        seen[key] = {
            "source": source.name,
            "branch": branch,
            "path": path,
            "lines": [first, last],
            "text": body,
            "heldout": bool(heldout),
        }


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", choices=(*SOURCES, "all"), default="mindspore")
    parser.add_argument("--docs", help="git dir of the source's docs (one source only)")
    parser.add_argument("--branches", help="comma-separated branches (one source only)")
    parser.add_argument("--page", default="", help="only pages whose path holds this")
    parser.add_argument("--list", choices=("nothing", "code", "named", "all"), default=None)
    parser.add_argument("--json", help="write every snippet and its reading here")
    parser.add_argument(
        "--include-heldout",
        action="store_true",
        help="also the snippets the held-out half was copied from (marked [held-out]); for "
        "the full documentation sweep after the held-out measure has been taken: the "
        "corpus cases of those pages then move to dev (their manifest's split)",
    )
    args = parser.parse_args(argv)
    names = list(SOURCES) if args.source == "all" else [args.source]
    sources = [SOURCES[n] for n in names]
    if len(sources) == 1 and (args.docs or args.branches):
        one = sources[0]
        branches = args.branches.split(",") if args.branches else one.branches
        sources = [
            Source(one.name, args.docs or one.docs, branches, one.pages, one.lines_on_every_branch)
        ]
    for source in sources:
        if not os.path.isdir(source.docs):
            print(f"no clone of {source.name}'s docs at {source.docs} (see the module's docstring)")
            return 2
    found, skipped = sweep(sources, args.page, args.include_heldout)
    per_page: Dict[str, Counter] = {}
    for item in found:
        per_page.setdefault(item["path"], Counter())[item["reading"]] += 1
    total: Counter = Counter(item["reading"] for item in found)
    print(f"{'page':70} named  code  nothing  held-out skipped")
    for path in sorted(set(per_page) | set(skipped)):
        c = per_page.get(path, Counter())
        print(f"{path:70} {c['named']:5} {c['code']:5} {c['nothing']:8} {skipped[path]:8}")
    print(
        f"all {len(found)} snippets: {total['named']} named, {total['code']} by a code only, "
        f"{total['nothing']} nothing; {sum(skipped.values())} skipped (held-out)"
    )
    if args.list:
        for item in found:
            if args.list in ("all", item["reading"]):
                where = f"{item['branch']}:{item['path']}#L{item['lines'][0]}-L{item['lines'][1]}"
                if item.get("heldout"):
                    where += " [held-out]"
                print(f"\n--- {item['reading']} {item['first']} | {where}\n{item['text'][:1500]}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(found, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
