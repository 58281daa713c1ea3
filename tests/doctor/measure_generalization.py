"""How well the doctor's rules generalise: its readings of meaning-keeping variants.

    .venv/bin/python tests/doctor/measure_generalization.py [--n 8] [--seed 0] [--misses]

1. Every knowledge-base example, mutated ``--n`` ways (tests/doctor/mutations.py: other
   paths, numbers, dtypes, operator names, versions, log prefixes, CRLF, a traceback around
   it): the fraction still read with the example's rule's first topic, per mutator and per
   rule. A rule whose patterns only match its example verbatim shows up here.
2. The dev half of the real-error corpus (never the held-out half), mutated the same way:
   the fraction still right, still not wrong, and how many dev cases are read by a rule that
   carries the case's own text among its examples (read by memory: only the variants say
   whether that rule is general).

Prints numbers; asserts nothing (tests/doctor/test_generalization.py holds the floor).
"""

import argparse
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def first_topic(text):
    """The first finding's (rule id, first topic), or (None, None)."""
    from ascend_lab.doctor import diagnose_text

    diag = diagnose_text(text)
    if not diag.findings:
        return None, None
    f = diag.findings[0]
    return f.id, (f.topics[0] if f.topics else f.id)


def expected_topic(entry):
    return entry.topics[0] if entry.topics else entry.id


def example_mutants(entry, index, n, seed):
    """The variants of one example of ``entry``: a pitfall's example is source code, so only
    what varies in code varies; operator names the rule is about stay."""
    from tests.doctor.mutations import CODE_MUTATORS, MUTATORS, OPS, mutants

    about = (entry.id + " " + entry.title).lower()
    keep = tuple(op for op in OPS if op.lower() in about)
    names = CODE_MUTATORS if entry.kind == "pitfall" else tuple(MUTATORS)
    return mutants(entry.examples[index], n, seed + index, keep=keep, names=names)


def examples_score(n, seed, misses):
    from ascend_lab.doctor.knowledge import load_entries

    total = right = 0
    by_kind_fail, by_kind_all, by_rule = Counter(), Counter(), Counter()
    shown = []
    for entry in load_entries():
        want = expected_topic(entry)
        for i in range(len(entry.examples)):
            for kind, variant in example_mutants(entry, i, n, seed):
                total += 1
                rule, topic = first_topic(variant)
                for k in kind.split("+"):
                    by_kind_all[k] += 1
                if topic == want:
                    right += 1
                    continue
                by_rule[entry.id] += 1
                for k in kind.split("+"):
                    by_kind_fail[k] += 1
                shown.append((entry.id, i, kind, rule, topic))
    print(f"knowledge-base examples, mutated: {right} of {total} read right ({right / total:.1%})")
    print(
        "  misses per mutator: "
        + ", ".join(f"{k} {by_kind_fail[k]}/{by_kind_all[k]}" for k in sorted(by_kind_all))
    )
    if by_rule:
        print("  rules with misses: " + ", ".join(f"{r} {c}" for r, c in by_rule.most_common()))
    if misses:
        for rid, i, kind, rule, topic in shown:
            print(f"    {rid}[{i}] {kind}: -> {rule} ({topic})")
    return right, total


def dev_score(n, seed, misses):
    from ascend_lab.doctor.knowledge import load_entries
    from tests.doctor.measure_corpus import (
        answers_of,
        first_answer,
        load_manifest,
        read_case,
        today_topics_by_rule,
    )
    from tests.doctor.mutations import mutants

    topics_by_rule = today_topics_by_rule()
    examples = {e.id: e.examples for e in load_entries()}
    cases = [c for c in load_manifest() if c["half"] == "dev"]  # never the held-out half
    counts = Counter()
    memorised = 0
    shown = []
    for k, case in enumerate(cases):
        text = read_case(case)
        ans = answers_of(text)
        if ans["findings"]:
            own = examples.get(ans["findings"][0]["id"], ())
            lines = [ln.strip() for ln in text.split("\n") if len(ln.strip()) > 30]
            if any(ln in ex for ex in own for ln in lines):
                memorised += 1
        for kind, variant in mutants(text, n, seed + k):
            shown_answer, spellings = first_answer(answers_of(variant), topics_by_rule)
            if shown_answer is None:
                verdict = "unrecognised"
            elif any(s in case["expect"] for s in spellings):
                verdict = "right"
            else:
                verdict = "wrong"
            counts[verdict] += 1
            if verdict != "right":
                shown.append((case["id"], kind, verdict, shown_answer, case["expect"]))
    total = sum(counts.values())
    print(
        f"dev cases ({len(cases)}), mutated: {counts['right']} of {total} right "
        f"({counts['right'] / total:.1%}), {counts['wrong']} wrong, "
        f"{counts['unrecognised']} unrecognised"
    )
    print(f"  dev cases read by a rule carrying a line of the case as its example: {memorised}")
    if misses:
        for cid, kind, verdict, got, want in shown:
            print(f"    {verdict}: {cid} {kind}: -> {got} (expect {', '.join(want)})")
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=8, help="variants per text")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--misses", action="store_true", help="list every miss")
    args = parser.parse_args(argv)
    sys.path.insert(0, REPO)
    examples_score(args.n, args.seed, args.misses)
    dev_score(args.n, args.seed, args.misses)


if __name__ == "__main__":
    main()
