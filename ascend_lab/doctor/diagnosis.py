"""The Diagnosis: ranked findings for one text plus what the machine says about them."""

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ascend_lab.doctor.checks import (
    CONFIRMED,
    Confirmation,
    Environment,
    confirm,
    environment_problems,
    environment_summary,
    gather,
)
from ascend_lab.doctor.codes import CodeNote, explain, find_codes
from ascend_lab.doctor.intake import cut_long_lines, limits_from_env, line_note
from ascend_lab.doctor.knowledge import Entry
from ascend_lab.doctor.levels import Levels, only_warnings
from ascend_lab.doctor.match import Match, match_text
from ascend_lab.doctor.raised import Raised, read_raised
from ascend_lab.doctor.sizes import MemoryNumbers, memory_numbers
from ascend_lab.i18n import N_, _, current, msg, using

NEXT_STEPS = (  # translated where they are shown (render.py)
    N_("`npu-smi info`: are the NPUs listed, healthy, and free (process table)?"),
    N_(
        "`ascend-lab status --json`: installed driver, firmware, CANN and MindSpore versions "
        "and whether they match"
    ),
    N_("The full error, including MindSpore's 'The Traceback of Net Construct Code' block"),
    N_(
        "The CANN device logs (plog): `ls -t ~/ascend/log/debug/plog/ | head` "
        "(or $ASCEND_PROCESS_LOG_PATH)"
    ),
    N_(
        "More detail from CANN: `export ASCEND_GLOBAL_LOG_LEVEL=1` (0=debug, 1=info) and "
        "`export ASCEND_SLOG_PRINT_TO_STDOUT=1`, then rerun"
    ),
    N_("More detail from MindSpore: `export GLOG_v=1` (info), then rerun"),
    N_('Is the installation sane? `python -c "import mindspore; mindspore.run_check()"`'),
)


_SPACES = re.compile(r"[ \t]{2,}|\t")

NOT_FROM_HERE = N_(
    "The text may come from another machine, so this machine's environment is not shown "
    "(add --env to show it)"
)


RANK_LABELS = {  # how sure a finding is (Finding.rank), shown beside it; translated in render
    "signature": N_("matched a known error signature"),
    "code": N_("known error code"),
    # a known code whose meaning no topic covers: it says that a call failed, not why
    "code-no-cause": N_(
        "known error code, but its meaning names no cause: read the lines before it"
    ),
    "family": N_("only the code's family is known"),
    "raised": N_("only where it was raised is known"),
    # no rule or code names anything, and every line with a log level is a warning
    "levels": N_("read from the log levels: only warnings, no line reports an error"),
}


MEMORY_TOPICS = frozenset({"oom-device", "oom-host", "impossible-size"})
IMPOSSIBLE = "impossible-size"


@dataclass
class Finding:
    """One recognised cause, with the line of the text that shows it.

    ``rank`` says how sure it is: "signature" (a knowledge-base rule matched), "code" (a code
    whose meaning the tables know), "family" (only the code's module or range is known),
    "raised" (no rule or code names it; the text's structure shows where it was raised:
    :mod:`.raised`), "levels" (nothing is named and every line with a log level is a warning:
    :mod:`.levels`).
    """

    entry: Entry
    evidence: List[Any]  # [(line number, text)], first = best
    patterns_matched: int
    detail: Optional[str] = None
    confirmation: Optional[Confirmation] = None
    rank: str = "signature"
    code: Optional[CodeNote] = None  # the code a "code"/"family" finding explains (English)
    generic: bool = False  # only a generic line matched (:func:`tier`)
    memory: Optional[MemoryNumbers] = None  # the sizes an out-of-memory text states

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def topics(self) -> Tuple[str, ...]:
        """What the failure is (topics.json), first = the main one; a code finding also
        carries "code:<CODE>" and "family:<X>". A request of an impossible size (the text's
        numbers, :mod:`.sizes`) is first of all that."""
        topics = self.entry.topics
        if self.memory is not None and self.memory.impossible and topics[:1] != (IMPOSSIBLE,):
            return (IMPOSSIBLE,) + tuple(t for t in topics if t != IMPOSSIBLE)
        return topics

    def note(self, lang: Optional[str] = None) -> Optional[CodeNote]:
        """The code's note in ``lang`` (default: the reader's language)."""
        c = self.code
        if c is None:
            return None
        return explain(c.code, c.kind, c.line, c.name, lang or current())

    @property
    def title(self) -> str:
        """The title in the language it is read in (:func:`ascend_lab.i18n.current`: ``--lang``,
        the notebook's edition, the locale), with the matched detail (an operator name)."""
        note = self.note()
        if note is not None:
            return code_title(note)
        title = self.entry.text("title", current())
        return _("{}: {}").format(title, self.detail) if self.detail else title

    @property
    def english_title(self) -> str:
        """The title as JSON and report bundles carry it, whatever the reader's language."""
        if self.code is not None:
            return code_title(self.code)
        return f"{self.entry.title}: {self.detail}" if self.detail else self.entry.title

    @property
    def evidence_line(self) -> str:
        return self.evidence[0][1] if self.evidence else ""

    def to_dict(self) -> Dict[str, Any]:
        e = self.entry
        return {
            "id": e.id,
            "title": self.english_title,
            "rank": self.rank,
            "term": e.term,
            "kind": e.kind,
            "category": e.category,
            "topics": list(self.topics),
            "priority": e.priority,
            "cause": e.cause,
            "fix": list(e.fix),
            "explanation": e.explanation,
            "evidence": [{"line": n, "text": t} for n, t in self.evidence],
            "detail": self.detail,
            "confirmation": self.confirmation.to_dict() if self.confirmation else None,
            "code": self.code.to_dict() if self.code is not None else None,
            "memory": self.memory.to_dict() if self.memory is not None else None,
        }


def rank_label_key(f: "Finding") -> str:
    """The key of :data:`RANK_LABELS` to show beside ``f``: its rank, or "code-no-cause"
    for a known code whose meaning names no topic (a generic argument check, "GE failure")."""
    if f.rank == "code" and not any(not t.startswith(("code:", "family:")) for t in f.topics):
        return "code-no-cause"
    return f.rank


def code_title(note: CodeNote) -> str:
    """A code finding's title: the code and what it means (or its module, for a family)."""
    if note.rank == "code":
        return f"{note.code}: {note.meaning}"
    return f"{note.code}: {note.module}"


# A device task timeout in a text about collectives is a collective's timeout (HCCL runs its
# own tasks on the device: "hccl fftsplus task timeout", "notify wait"). A code whose meaning
# names its own unit first (an AI Core kernel's timeout, 507014) keeps its reading: HCCL's
# tasks do not run on the AI Core.
_COLLECTIVE_WORDS = ("hccl", "hcom", "allreduce", "all_reduce", "allgather", "notify")


def _topics_in(note: CodeNote, lowered: str) -> Tuple[str, ...]:
    topics = note.topics
    if topics[:1] == ("task-timeout",) and any(w in lowered for w in _COLLECTIVE_WORDS):
        return ("collective-timeout",) + topics
    return topics


def built_entry(
    entry_id: str,
    category: str,
    en: Mapping[str, Any],
    zh: Mapping[str, Any],
    topics: Tuple[str, ...] = (),
) -> Entry:
    """An entry made for one finding (a code's, a "raised" one), not read from the
    knowledge base: texts with title, term, cause, fix, explanation, in English and Chinese."""
    return Entry(
        id=entry_id,
        title=en["title"],
        term=en["term"],
        category=category,
        kind="error",
        priority=0,
        patterns=(),
        cause=en["cause"],
        fix=tuple(en["fix"]),
        explanation=en["explanation"],
        examples=(),
        translations=(("zh_CN", dict(zh)),),
        topics=topics,
    )


def code_finding(note: CodeNote, text_line: str, lowered: str = "") -> Finding:
    """The finding for a code the text carries (``note`` in English; ``lowered``: the whole
    text in lower case, for the context of the code)."""
    zh = explain(note.code, note.kind, note.line, note.name, "zh_CN")

    def texts(n: CodeNote) -> Dict[str, Any]:
        return {
            "title": code_title(n),
            "term": n.module,
            "cause": n.meaning,
            "fix": list(n.next_steps),
            "explanation": "; ".join(n.causes) or n.meaning,
        }

    entry = built_entry(
        "code-" + note.code.lower(), "code", texts(note), texts(zh), _topics_in(note, lowered)
    )
    return Finding(
        entry=entry,
        evidence=[(note.line, text_line)],
        patterns_matched=0,
        rank=note.rank,
        code=note,
    )


def _raised_texts(r: Raised) -> Dict[str, Any]:
    """The finding's texts in the current language."""
    info = r.info
    name = _(info.name)
    if r.exception:
        title = _("{} raised in {}").format(r.exception, name)
    else:
        title = _("Error reported by {}").format(name)
    cause = _("No known rule or code names this failure; {} raised it ({}).").format(
        name, r.where or name
    )
    fix = []
    if r.framework_internal:
        title = _("MindSpore reports an unexpected error of its own: {}").format(title)
        cause = _(
            "MindSpore's report says this error is the framework's own unexpected one "
            "(Framework Unexpected Exception Raised), not a check of your input; {} raised it "
            "({})."
        ).format(name, r.where or name)
        fix.append(
            _(
                "Search MindSpore's issue tracker for the message; try the latest patch release "
                "of your MindSpore version (and a CANN that matches it); if it persists, report "
                "it with the smallest script that shows it"
            )
        )
    if r.user_frame is not None:
        fix.append(_("Start from your code: {}").format(r.user_frame))
    if r.message:
        fix.append(_("Read the error's own message: {}").format(r.message))
    fix.extend(_(step) for step in info.steps)
    return {
        "title": title,
        "term": name,
        "cause": cause,
        "fix": fix,
        "explanation": _("{}: it {}.").format(name, _(info.does)),
    }


def raised_finding(r: Raised) -> Finding:
    """The lowest-ranked finding: where the error was raised, when nothing names it. It
    carries no topic, so it never claims a cause, except the one MindSpore's own report
    states: that the error is the framework's unexpected one ('framework-internal')."""
    with using("en"):
        en = _raised_texts(r)
    with using("zh_CN"):
        zh = _raised_texts(r)
    topics = ("framework-internal",) if r.framework_internal else ()
    entry = built_entry("raised-" + r.component, "raised", en, zh, topics)
    evidence = [(r.line, r.text_line)] if r.line else []
    return Finding(entry=entry, evidence=evidence, patterns_matched=0, rank="raised")


def _warnings_texts(levels: Levels) -> Dict[str, Any]:
    """The texts of :func:`warnings_finding` in the current language."""
    return {
        "title": _("Only warnings: nothing in this text says that the run failed"),
        "term": _("log levels"),
        "cause": _(
            "Every line that prints a log level is a warning or information ({} warning "
            "lines, {} information lines), and no line reports an error: no error level, "
            "exception, traceback, error code or fatal signal. Runs that succeed print "
            "warnings like these."
        ).format(levels.warnings, levels.infos),
        "fix": [
            _(
                "If the run did fail, paste the part of the log where it stopped: the first "
                "line at error level (ERROR, E1207 ..., [E ...]), the exception and its "
                "traceback"
            ),
            _(
                "If it did not, read the first warning once (what it names may matter for "
                "results or speed, such as an operator falling back to the CPU) and otherwise "
                "ignore it: {}"
            ).format(levels.first_warning_text),
        ],
        "explanation": _(
            "A warning says a tool noticed something and went on; many are printed on every "
            "run, for every layer or every scheduling round."
        ),
    }


def warnings_finding(levels: Levels) -> Finding:
    """The finding for a text that is only warnings (:mod:`.levels`), when nothing else is
    recognised: 'not-a-failure', ranked by the log levels, never above a rule or a code."""
    with using("en"):
        en = _warnings_texts(levels)
    with using("zh_CN"):
        zh = _warnings_texts(levels)
    entry = built_entry("only-warnings", "levels", en, zh, ("not-a-failure",))
    evidence = [(levels.first_warning, levels.first_warning_text)]
    return Finding(entry=entry, evidence=evidence, patterns_matched=0, rank="levels")


def code_findings(
    text: str, notes: Sequence[CodeNote], findings: Sequence[Finding]
) -> List[Finding]:
    """A finding for every code no signature finding already shows: known codes first,
    then the codes only their family explains."""
    # a code a specific rule's evidence shows is that rule's; one a generic rule's evidence
    # shows (a wrapper line quoting the code) gets its own finding, which ranks above it
    shown = " ".join(
        line for f in findings if not (f.generic or f.entry.generic) for _n, line in f.evidence
    )
    lines = text.split("\n")
    lowered = text.lower()
    out = []
    for note in notes:
        if note.code in shown:
            continue
        line = lines[note.line - 1].strip() if 0 < note.line <= len(lines) else note.code
        out.append(code_finding(note, line[:300], lowered))
    out.sort(key=lambda f: 0 if f.rank == "code" else 1)
    return out


@dataclass
class Diagnosis:
    """Everything ``%ascend_doctor`` / ``ascend-lab doctor`` found; renders as text or HTML."""

    source: str  # what was examined: "last exception", "text", "cell", "file x.log", ...
    text_chars: int = 0
    text_lines: int = 0
    findings: List[Finding] = field(default_factory=list)
    environment: List[Confirmation] = field(default_factory=list)  # env-only problems
    error_codes: List[CodeNote] = field(default_factory=list)  # every CANN code in the text
    checked: List[str] = field(default_factory=list)  # what was looked at
    notes: List[str] = field(default_factory=list)
    lang: str = ""  # language it is shown in ("": the current one); JSON is always English
    unsure: List[Finding] = field(default_factory=list)  # first findings that compete

    @property
    def recognised(self) -> bool:
        return (
            bool(self.findings)
            or bool(self.error_codes)
            or any(c.verdict == CONFIRMED for c in self.environment)
        )

    @property
    def next_steps(self) -> List[str]:
        sure = any(f.rank not in ("family", "raised") for f in self.findings)
        return [] if sure else [msg(step) for step in NEXT_STEPS]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": "ascend-lab.doctor/1",
            "source": self.source,
            "text_chars": self.text_chars,
            "text_lines": self.text_lines,
            "recognised": self.recognised,
            "findings": [f.to_dict() for f in self.findings],
            "unsure_between": [f.id for f in self.unsure],
            "environment": [c.to_dict() for c in self.environment],
            "error_codes": [c.to_dict() for c in self.error_codes],
            "checked": list(self.checked),
            "notes": list(self.notes),
            "next_steps": self.next_steps,
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        import json

        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        from ascend_lab.doctor.render import render_text

        with self._language():
            return render_text(self)

    def _language(self) -> Any:
        from contextlib import nullcontext

        from ascend_lab.i18n import using

        return using(self.lang) if self.lang else nullcontext()

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        ids = ", ".join(f.id for f in self.findings) or "nothing recognised"
        return f"<Diagnosis of {self.source}: {ids}>"

    def _repr_html_(self) -> str:
        from ascend_lab.doctor.render import render_html

        with self._language():
            return render_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.to_text())


def findings_from(matches: Sequence[Match]) -> List[Finding]:
    """Rule ("signature") findings in the matcher's order (:func:`.match.rank_key`); the
    order shown is :func:`order_findings`'."""
    return [
        Finding(
            entry=m.entry,
            evidence=list(m.evidence),
            patterns_matched=m.patterns_matched,
            detail=m.detail,
            generic=m.generic,
        )
        for m in matches
    ]


# Codes printed on the way up by whatever failed first, not naming a failure of their own:
# an internal error of a module (E?9999, "Inner Error!"), the runtime's "argument invalid"
# that a failed stream synchronisation raises (EE1001), "model execute failed" (507011, with
# every fault of a graph's kernels), ACL's "a parameter failed its check" (100000), and HCCL's
# results for an internal error, a null pointer, and a runtime or CCE call that failed.
FOLLOW_ON_CODES = frozenset(
    {"EE1001", "507011", "100000", "HCCL_E_INTERNAL", "HCCL_E_PTR", "HCCL_E_RUNTIME", "HCCL_E_CCE"}
)
# torch_npu's codes for a failed ACL / HCCL / GE call and its internal error: the CANN code
# printed with them (or the lines before) says why. So do GE's status numbers whose meaning
# names no topic (GE_GRAPH_PREPARE_FAILED, INTERNAL_ERROR, FAILED: the ErrorNo of GE's plog).
TORCH_NPU_FOLLOW_ON = frozenset({"100", "200", "300", "005"})
# The tools downstream of CANN whose codes the tables mark internal (MindIE's caught exceptions
# and internal logic, MindX SDK's general failures) report what failed before them.
DOWNSTREAM_KINDS = frozenset({"torch_npu", "mindie", "mindx_sdk"})
# A timeout is usually what the other ranks, or the host, see after something else failed.
CONSEQUENCE_TOPICS = frozenset({"collective-timeout", "task-timeout", "data-timeout"})
# Two specific findings closer than this in priority, about different things: say unsure.
UNSURE_GAP = 4

TIERS = (  # most telling first
    "specific signature",
    "specific code",
    "consequence",  # a timeout or a heartbeat lost, which usually follows another failure
    "code without a cause",  # a known code whose meaning names no cause: 107002, 500001
    "generic signature",  # a wrapper line: "Call aclnnX failed, detail: EZ9999"
    "generic code",  # an internal error code, a follow-on code
    "family",
    "raised",  # nothing names it: where it was raised (:mod:`.raised`), or only warnings
)


def is_follow_on(note: CodeNote) -> bool:
    """Whether a code only reports that something failed earlier (see FOLLOW_ON_CODES)."""
    return (
        note.code in FOLLOW_ON_CODES
        or (note.kind == "cann" and note.internal)
        or (note.kind == "torch_npu" and note.code[-3:] in TORCH_NPU_FOLLOW_ON)
        or (note.kind == "ge_status" and note.topics[0].startswith("code:"))
        or (note.kind in ("mindie", "mindx_sdk") and note.internal)
        or (note.kind == "mindie" and note.code[5] == "W")  # a MindIE warning code
    )


def tier(f: Finding) -> int:
    """Where ``f`` ranks among the tiers of :data:`TIERS` (0 = most telling)."""
    if f.rank in ("raised", "levels"):
        return 7
    if f.code is None:
        if f.generic or f.entry.generic:
            return 4
        return 2 if f.entry.consequence else 0
    if f.rank == "family":
        return 6
    if is_follow_on(f.code):
        return 5
    if rank_label_key(f) == "code-no-cause":
        return 3  # names the call that failed exactly, but not why: below a code that does
    return 2 if CONSEQUENCE_TOPICS.intersection(f.topics) else 1


def order_findings(findings: Sequence[Finding]) -> List[Finding]:
    """The findings, most telling first.

    1. By tier (:data:`TIERS`): a specific signature (a rule), then a code whose meaning
       the tables know, then a consequence (a rule declared ``consequence``, or a code
       whose meanings include a timeout: other ranks time out after one rank crashed, a stream
       synchronisation after a kernel failed), then a generic signature (a rule declared
       ``generic``, or matched only by its ``generic_patterns``: a wrapper line any
       failure prints), then a follow-on code (an internal
       error E?9999, :data:`FOLLOW_ON_CODES`), then a code only its family explains. A
       known code whose meaning names no cause (107002 'no current context', 500001 'GE
       failure') ranks after the codes that name one and before a generic signature: it
       names exactly which call failed, a wrapper line does not.
    2. Within a tier, rules keep the matcher's order (priority first, then the earliest in
       the text: :func:`.match.rank_key`) and codes the order of their first appearance in
       the text (the first error in time), except that among known codes a CANN message
       code comes before an API's return code (:func:`_order_key`).

    Why: a pasted log holds the root cause and what followed from it (the wrapper
    exception, the generic inner-error code, the other ranks' timeouts); the specific
    signature names the failure, the follow-on lines name none. Measured on composites of
    the dev texts with such lines before and after them (tests/doctor/test_composites.py).
    """
    return sorted(findings, key=_order_key)  # stable: the order within a tier is kept


def _order_key(f: Finding) -> Tuple[int, int]:
    # Among known codes, a CANN message code (EL0002 'The device ID is invalid') says why the
    # call failed; the API's return code (507033 'device setup error') only that it did.
    # Among follow-on codes, torch_npu's "call acl api failed" (ERR00100), MindIE's internal
    # errors and MindX SDK's general failures come after the CANN code printed with them
    # (EE1001, EZ9999), which says more.
    t = tier(f)
    if t == 5:
        return t, int(f.code is not None and f.code.kind in DOWNSTREAM_KINDS)
    return t, int(t == 1 and f.code is not None and f.code.kind != "cann")


def add_memory_numbers(findings: Sequence[Finding], text: str) -> None:
    """Give the first out-of-memory finding the sizes the text states (:mod:`.sizes`)."""
    for f in findings:
        if MEMORY_TOPICS.intersection(f.entry.topics):
            f.memory = memory_numbers(text)
            return


def unsure_between(findings: Sequence[Finding]) -> List[Finding]:
    """The competing first findings when the doctor cannot tell which came first, else [].

    Unsure: the first two findings are in the same specific tier (two signatures, or two
    known codes), about different things (no shared topic), and neither is clearly more
    specific (rules: priorities within :data:`UNSURE_GAP`). The first stays first; the
    reader is told that the second is as likely.
    """
    if len(findings) < 2:
        return []
    a, b = findings[0], findings[1]
    ta, tb = tier(a), tier(b)
    if ta != tb or ta > 1:
        return []
    if set(a.topics) & set(b.topics):
        return []
    if ta == 0 and a.entry.priority - b.entry.priority > UNSURE_GAP:
        return []
    return [a, b]


def diagnose(
    text: Optional[str],
    source: str = "text",
    check_environment: bool = True,
    facts: Optional[Environment] = None,
    env: Optional[Mapping[str, str]] = None,
    status: Optional[Dict[str, Any]] = None,
    notes: Optional[List[str]] = None,
    max_line_chars: Optional[int] = None,
    environment_section: bool = True,
) -> Diagnosis:
    """Diagnose ``text`` (None: the environment only).

    ``check_environment=False`` skips every machine check (pure text matching).
    ``facts``/``env``/``status`` let tests and callers supply the machine state.
    Lines longer than ``max_line_chars`` (default: ``$ASCEND_LAB_DOCTOR_MAX_LINE_CHARS``)
    are examined only at their start and end, and a note says so.
    ``environment_section=False`` (a text that may come from another machine: pasted, a
    log file from elsewhere) leaves out this machine's own environment problems; the
    machine checks of the findings, which say "on this machine", stay.
    """
    if text is not None and not isinstance(text, str):
        raise TypeError(f"diagnose() needs text as str, got {type(text).__name__}")
    diag = Diagnosis(source=source if text is not None else "environment", notes=list(notes or []))
    if text is not None:
        diag.text_chars = len(text)
        diag.text_lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        if max_line_chars is None:
            limits, bad = limits_from_env()
            max_line_chars = limits.max_line_chars
            diag.notes.extend(n for n in bad if n not in diag.notes)
        examined, cut = cut_long_lines(text, max_line_chars)
        if cut:
            diag.notes.append(line_note(cut, max_line_chars))
        diag.findings = findings_from(match_text(examined))
        # codes are read with runs of spaces and tabs made one space ("error code is  507035"
        # from a rendered page or an aligned log); lines stay where they are
        diag.error_codes = find_codes(_SPACES.sub(" ", examined))
        diag.findings += code_findings(examined, diag.error_codes, diag.findings)
        if not any(f.code is None or f.rank == "code" for f in diag.findings):
            # where it was raised, when nothing names it; beside a code's family only when
            # the text shows the part that raised it
            raised = read_raised(examined)
            if raised is not None and (not diag.findings or raised.component != "unknown"):
                diag.findings.append(raised_finding(raised))
        if not diag.findings:
            # nothing named: a text that is only warnings says that nothing failed
            levels = only_warnings(examined)
            if levels is not None:
                diag.findings.append(warnings_finding(levels))
        diag.findings = order_findings(diag.findings)
        add_memory_numbers(diag.findings, examined)
        diag.unsure = unsure_between(diag.findings)
        if diag.text_lines == 1:
            checked = msg("{} ({} line) against {} known problems", source, 1, _kb_size())
        else:
            checked = msg(
                "{} ({} lines) against {} known problems", source, diag.text_lines, _kb_size()
            )
        diag.checked.append(checked)
    if not check_environment:
        return diag
    if facts is None:
        facts = gather(env=env, status=status)
    for f in diag.findings:
        if f.entry.confirm:
            f.confirmation = confirm(f.entry.confirm, facts, f.entry.id)
    try:
        problems = environment_problems(facts)
    except Exception as exc:  # a broken probe result must not hide the findings
        problems = [
            Confirmation("environment", "could not check", [msg("{}: {}", type(exc).__name__, exc)])
        ]
    if diag.findings:  # beside findings, show only what the machine itself shows is wrong
        problems = [c for c in problems if c.verdict == CONFIRMED]
    if text is not None and not environment_section:
        problems = []
        diag.notes.append(NOT_FROM_HERE)
    diag.environment = problems
    diag.checked.extend(environment_summary(facts))
    diag.checked.append(
        msg("Environment: CANN variables, set_env.sh under {}, user groups", facts.root)
    )
    return diag


def _kb_size() -> int:
    from ascend_lab.doctor.knowledge import load_entries

    return len(load_entries())
