"""How many cases of the real-error corpus (tests/fixtures/real/corpus) the doctor reads right.

    .venv/bin/python tests/doctor/measure_corpus.py [--before REV] [--half dev|heldout|both]
    .venv/bin/python tests/doctor/measure_corpus.py --fresh [--before REV]

For each half, runs ``ascend_lab.doctor.diagnose_text(text)`` on every case and counts:

- right: the first answer is one the case accepts (its manifest ``expect``);
- wrong: the first answer names a cause (a topic) the case does not accept;
- code, no cause: the first answer is a code whose table names no topic (an internal error,
  a generic argument check: the doctor shows its meaning and claims no cause) and the case
  does not accept the code itself. Counted apart from wrong since 12-07 (before, it was
  counted wrong; the two added give the old count);
- no topics: the first finding's rule carries no topic (topics.json), so it cannot be judged;
- unrecognised: no finding and no error code;
- unsure: of the above, how many the doctor flagged as unsure between its first two
  findings (``unsure_between``). An unsure case is still scored by its first answer: a
  flag does not make a wrong answer right, it only tells the reader to check.

The first answer is the first finding's first topic; when there is no finding, the first
error code note: its topics (if the note carries any), ``code:<CODE>`` or
``family:<prefix>``. Counts are printed per half, per source kind and per stack. The
misses are printed for the dev half only; of the held-out half only counts and case ids
of tracebacks are printed, never its texts or its answers (rules are written from dev).

``--fresh`` measures the fresh batch (tests/fixtures/real/fresh, see its README) instead: it
is measured once, by the integrator, before any rule is written from it, so only counts are
printed (per source kind, per stack, per ``cause_from``), never a text, an id or an answer.

``--before REV`` also measures the doctor of git revision REV (its ``ascend_lab`` tree,
extracted to a temporary folder and run in a subprocess), so a change can be reported as
before / after. An old finding without topics is given the topics today's knowledge base
has for the same rule id (a rule whose id is itself a topic: that topic). Prints numbers;
asserts nothing.
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import traceback
from collections import Counter, defaultdict
from typing import Dict, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(REPO, "tests", "fixtures", "real", "corpus")
FRESH = os.path.join(REPO, "tests", "fixtures", "real", "fresh")
HALVES = ("dev", "heldout")


def load_manifest():
    with open(os.path.join(CORPUS, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


def load_fresh(batch=None):
    """The fresh batch's cases (of ``batch`` only, when given: a case's own ``batch``, else
    the manifest's), each ``file`` made absolute (read_case then reads it as is)."""
    if not os.path.isfile(os.path.join(FRESH, "manifest.json")):
        sys.exit(
            f"no fresh batch: {FRESH}/manifest.json is missing (batches move to dev once measured)"
        )
    with open(os.path.join(FRESH, "manifest.json"), encoding="utf-8") as f:
        doc = json.load(f)
    cases = doc["cases"]
    if batch is not None:
        cases = [c for c in cases if c.get("batch", doc.get("batch")) == batch]
        if not cases:
            sys.exit(f"no case of batch {batch} in {FRESH}/manifest.json")
    for case in cases:
        case["file"] = os.path.join(FRESH, case["file"])
    return cases


def read_case(case):
    with open(os.path.join(CORPUS, case["file"]), encoding="utf-8") as f:
        return f.read()


def answers_of(text):
    """What the doctor of the imported ``ascend_lab`` says first about ``text`` (JSON-able)."""
    from ascend_lab.doctor import diagnose_text

    diag = diagnose_text(text)
    findings = []
    for f in getattr(diag, "findings", []) or []:
        entry = getattr(f, "entry", None)
        findings.append(
            {
                "id": getattr(entry, "id", "") or getattr(f, "id", ""),
                "topics": list(getattr(entry, "topics", ()) or ()),
            }
        )
    codes = []
    for note in getattr(diag, "error_codes", []) or []:
        code = str(getattr(note, "code", ""))
        kind = getattr(note, "kind", "")
        family = getattr(note, "family", "") or (code[:3] if kind == "return" else code[:2])
        codes.append(
            {
                "code": code,
                "family": family,
                "topics": list(getattr(note, "topics", ()) or ()),
                "rank": getattr(note, "rank", None),
            }
        )
    unsure = [getattr(f, "id", "") for f in getattr(diag, "unsure", []) or []]
    return {"findings": findings, "codes": codes, "unsure": unsure}


def first_answer(ans, topics_by_rule):
    """(answer shown, acceptable spellings of it) or (None, ()) when nothing is recognised."""
    if ans["findings"]:
        first = ans["findings"][0]
        topics = first["topics"] or topics_by_rule.get(first["id"], [])
        if topics:
            # a code's finding shows the code too: a case that accepts the code accepts it
            shown_codes = tuple(t for t in topics[1:] if t.startswith(("code:", "family:")))
            return topics[0], (topics[0],) + shown_codes
        return f"rule:{first['id']} (no topics)", ()
    if ans["codes"]:
        note = ans["codes"][0]
        spellings = [f"code:{note['code']}", f"family:{note['family']}"]
        if note["topics"]:
            spellings.insert(0, note["topics"][0])
        return spellings[0], tuple(spellings)
    return None, ()


def known_topics():
    with open(os.path.join(REPO, "ascend_lab", "doctor", "topics.json"), encoding="utf-8") as f:
        return set(json.load(f)["topics"])


def today_topics_by_rule():
    from ascend_lab.doctor.knowledge import read_knowledge

    entries = read_knowledge()["entries"]
    vocabulary = known_topics()
    found = {}
    for e in entries:
        if isinstance(e, dict):
            rule = e.get("id")
            # a rule without topics that is named like a topic: that topic
            found[rule] = list(e.get("topics", [])) or ([rule] if rule in vocabulary else [])
    return found


def run_here(cases):
    """Answers of the working tree's doctor: {id: answers or {"traceback": text}}."""
    out = {}
    for case in cases:
        try:
            out[case["id"]] = answers_of(read_case(case))
        except Exception:  # noqa: BLE001 - a traceback is what is being counted
            out[case["id"]] = {"traceback": traceback.format_exc(limit=3)}
    return out


def run_at(rev, cases):
    """Answers of the doctor at git revision ``rev``, run from an extracted copy of its tree."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = os.path.join(tmp, "tree.tar")
        subprocess.run(["git", "-C", REPO, "archive", "-o", archive, rev, "ascend_lab"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp)  # noqa: S202 - our own repository's tree
        listing = os.path.join(tmp, "cases.json")
        with open(listing, "w", encoding="utf-8") as f:
            json.dump(cases, f)
        command = [sys.executable, os.path.abspath(__file__), "--answers-for", listing]
        done = subprocess.run(
            command, capture_output=True, env=dict(os.environ, PYTHONPATH=tmp), cwd=tmp, check=True
        )
        return json.loads(done.stdout.decode("utf-8"))


def score(cases, answers, topics_by_rule):
    rows = []
    for case in cases:
        ans = answers[case["id"]]
        if "traceback" in ans:
            rows.append((case, "traceback", None))
            continue
        shown, spellings = first_answer(ans, topics_by_rule)
        if shown is None:
            verdict = "unrecognised"
        elif not spellings:
            verdict = "no-topics"  # a rule fired that names no topic: it cannot be judged
        elif any(s in case["expect"] for s in spellings):
            verdict = "right"
        elif shown.startswith("code:"):
            verdict = "code-only"  # a code without a topic: its meaning is shown, no cause
        else:
            verdict = "wrong"
        if ans.get("unsure"):
            verdict += "+unsure"
        rows.append((case, verdict, shown))
    return rows


def report(label, rows, half):
    unsure = Counter(v.split("+")[0] for _, v, _ in rows if v.endswith("+unsure"))
    rows = [(case, v.split("+")[0], shown) for case, v, shown in rows]
    total = Counter(v for _, v, _ in rows)
    n = len(rows)
    print(
        f"{label} {half}: {total['right']} of {n} right, {total['wrong']} wrong, "
        f"{total['code-only']} a code without a cause, "
        f"{total['no-topics']} by a rule without topics, {total['unrecognised']} unrecognised, "
        f"{total['traceback']} tracebacks; flagged unsure: {unsure['right']} right, "
        f"{unsure['wrong']} wrong"
    )
    keys = ("kind", "stack", "cause_from") if half == "fresh" else ("kind", "stack")
    for key in keys:
        per: Dict[str, Counter] = defaultdict(Counter)
        for case, verdict, _ in rows:
            value = case["source"]["kind"] if key == "kind" else case[key]
            per[value][verdict] += 1
        parts = [
            f"{v} {c['right']}/{sum(c.values())}" + (f" ({c['wrong']} wrong)" if c["wrong"] else "")
            for v, c in sorted(per.items())
        ]
        print(f"  per {key}: " + ", ".join(parts))
    if half == "fresh":
        return  # counts only: no id, text or answer of the fresh batch is printed
    collected = [(case, v) for case, v, _ in rows if case.get("split") == "dev"]
    if collected:
        c = Counter(v for _, v in collected)
        print(
            f"  of which collected while writing rules (split: dev): {c['right']} of "
            f"{len(collected)} right, {c['wrong']} wrong, {c['code-only']} a code without a "
            f"cause, {c['unrecognised']} unrecognised"
        )
    if half == "dev":
        for case, verdict, shown in rows:
            if verdict in ("wrong", "code-only", "no-topics", "unrecognised"):
                want = ", ".join(case["expect"])
                print(f"  {verdict}: {case['id']} -> {shown or '-'} (expect {want})")
    tracebacks = [case["id"] for case, verdict, _ in rows if verdict == "traceback"]
    if tracebacks:
        print(f"  tracebacks: {', '.join(tracebacks)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", metavar="REV", help="also measure the doctor at git REV")
    parser.add_argument("--half", choices=("dev", "heldout", "both"), default="both")
    parser.add_argument(
        "--fresh", action="store_true", help="measure the fresh batch (counts only; see its README)"
    )
    parser.add_argument(
        "--batch",
        type=int,
        help="with --fresh: only the cases of this batch (a case's 'batch', else the manifest's)",
    )
    parser.add_argument("--answers-for", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.answers_for:  # the subprocess of --before: its own ascend_lab is on PYTHONPATH
        with open(args.answers_for, encoding="utf-8") as f:
            cases = json.load(f)
        sys.stdout.write(json.dumps(run_here(cases)))
        return
    sys.path.insert(0, REPO)
    halves: Tuple[str, ...]
    if args.fresh:
        cases, halves = load_fresh(args.batch), ("fresh",)
    else:
        cases = load_manifest()
        halves = HALVES if args.half == "both" else (args.half,)
    topics_by_rule = today_topics_by_rule()
    runs = []
    if args.before:
        runs.append((f"before ({args.before})", run_at(args.before, cases)))
    runs.append(("now (working tree)", run_here(cases)))
    for label, answers in runs:
        for half in halves:
            chosen = [c for c in cases if c["half"] == half]
            report(label, score(chosen, answers, topics_by_rule), half)


if __name__ == "__main__":
    main()
