"""What counts as "an English sentence" in a notebook's printed output (issue #29).

A run of at least :data:`MIN_WORDS` consecutive English words, where a word is a token of
Latin letters only, lower case after its first letter (``found``, ``Ascend``, ``kernel's``).
What a learner reads as code or as a name is no word and breaks a run:

- identifiers and paths: a token holding a digit, ``_``, ``.`` inside, ``/``, ``-``, ``=``,
  ``%`` or ``@`` (``npu-smi``, ``device_target``, ``/tmp/x``, ``8.0.RC2``);
- names in CamelCase or capitals (``MindSpore``, ``ConvBNReLU``, ``CANN``, ``PATH``);
- anything in backticks;
- a quoted item of a printed list or tuple (``['embed', 'act']``: a token that is one
  quoted string with a bracket or a comma outside its quotes) is a value, not a word;
- an English term in full-width brackets right after Chinese text is the gloss of the
  Chinese term (``建链超时（link setup timeout）``, as the glossary writes terms);
- Chinese text and full-width punctuation break a run;
- punctuation that ends a clause (``.:;!?|``) ends the run after its word.

Lines a tool printed as they are, that no catalogue can translate, are left out, each by
its fixed form:

- ``npu-smi``'s table (lines framed by ``|`` / ``+``) and MindSpore's own log lines
  (``[WARNING] ME(...)``, the profiler's ``[pid] Parsing: ...``);
- MindSpore's ``TimeMonitor`` callback line (``Train epoch time: 722.459 ms, per step
  time: 90.307 ms``) and the section lines of its error reports (``- C++ Call Stack: (For
  framework developers)``, ``- The Traceback of Net Construct Code:``, ``(See file '…' for
  more details. Get instructions about `analyze_fail.ir` at https://…)``);
- NumPy's "compiled using NumPy 1.x" message, which MindSpore 2.10's wheel trips under
  NumPy 2 on a process's first PyNative error (seven fixed lines), and Python's traceback
  header and frame lines (``File "…", line 3, in f``); the exception's own message is read;
- ``mindspore.run_check()``'s verdict (``The result of multiplication calculation is
  correct, MindSpore has been installed on platform [CPU] successfully!``);
- lines a cell quotes from a native file behind a ``│`` gutter (notebook 10's
  ``first_lines``: an install-info file, a CANN log, a profiler CSV, as recorded);
- in HTML, the doctor's evidence lines (``ascend-doctor-evidence``: the error text it was
  given, quoted verbatim).

HTML outputs are read as their text (tags, styles and scripts dropped). Every pattern here
is linear: bounded classes, no nested quantifiers.
"""

import html
import re
from typing import Any, Iterator, List

MIN_WORDS = 3
WORD = re.compile(r"[A-Za-z][a-z]*(?:'[a-z]+)?")
OPENERS = "(\"'“‘[<"
CLOSERS = ",.;:!?)\"'”’]>"
ENDS_CLAUSE = ".;:!?|"
TOOL_LINE = re.compile(
    r"^\s*(?:[|+│]|\[(?:WARNING|INFO|ERROR|DEBUG|EXCEPTION)\] |\[\d+\] )"  # │: a quoted file
)
# whole lines MindSpore, NumPy and Python print in English whatever the reader's language
VERBATIM_LINE = re.compile(
    r"Train epoch time: \d{1,12}\.?\d{0,6} ms, per step time: \d{1,12}\.?\d{0,6} ms"
    r"|- C\+\+ Call Stack: \(For framework developers\)"
    r"|- The Traceback of Net Construct Code:"
    r"| ?\(See file '[^'\n]{1,4096}' for more details\. Get instructions about `[^`\n]{1,200}`"
    r" at https?://[^\s)]{1,500}\)"
    r"|A module that was compiled using NumPy 1\.x cannot be run in"
    r"|NumPy [0-9.]{1,20} as it may crash\. To support both 1\.x and 2\.x"
    r"|versions of NumPy, modules must be compiled with NumPy 2\.0\."
    r"|Some module may need to rebuild instead e\.g\. with 'pybind11>=2\.12'\."
    r"|If you are a user of the module, the easiest solution will be to"
    r"|downgrade to 'numpy<2' or try to upgrade the affected module\."
    r"|We expect that some modules will need time to support NumPy 2\."
    r"|The result of multiplication calculation is correct, MindSpore has been installed on"
    r" platform \[[A-Za-z]{1,20}\] successfully!"
    r"|\s{0,8}(?:Traceback \(most recent call last\):)?"
    r"\s{0,8}(?:File \"[^\"\n]{1,4096}\", line \d{1,9}, in [^\s]{1,200})?\s{0,8}"
)
CODE_SPAN = re.compile(r"`[^`\n]*`")
# a quoted string with a bracket or comma outside its quotes: an item of a printed list
LIST_ITEM = re.compile(r"""[\[(]{0,4}(?:'[^'\s]{1,200}'|"[^"\s]{1,200}")[\]),]{0,4}""")
# （an English term） right after a Chinese character: the gloss of a Chinese term
GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])（[A-Za-z][A-Za-z '/-]{0,80}）")
EVIDENCE = re.compile(
    r"<div class=\"ascend-doctor-evidence\"[^>]*>(?:<span[^>]*>[^<]*</span>)?[^<]*</div>"
)
STYLE_OR_SCRIPT = re.compile(r"<(style|script)\b[^>]*>[^<]*</\1\s*>", re.I)
TAG = re.compile(r"<[^<>]*>")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Chinese text and full-width punctuation end an English run like a clause break does
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def word(token: str) -> bool:
    """``token`` (with its brackets and punctuation) is an English word, not a name."""
    if LIST_ITEM.fullmatch(token) and (token[0] in "[(" or token[-1] in ",])"):
        return False
    core = token.lstrip(OPENERS).rstrip(CLOSERS)
    if not WORD.fullmatch(core):
        return False
    return not (len(core) > 1 and core.isupper())


def sentences(text: str, min_words: int = MIN_WORDS) -> List[str]:
    """The English sentences (runs of ``min_words`` words or more) in ``text``."""
    found: List[str] = []
    for line in ANSI.sub("", text).splitlines():
        if TOOL_LINE.match(line) or VERBATIM_LINE.fullmatch(line):
            continue
        run: List[str] = []
        for token in CJK.sub(" | ", GLOSS.sub(" | ", CODE_SPAN.sub(" | ", line))).split():
            is_word = word(token)
            if is_word:
                run.append(token)
            if not is_word or token.rstrip("\"')]”’")[-1:] in ENDS_CLAUSE:
                if len(run) >= min_words:
                    found.append(" ".join(run))
                run = []
        if len(run) >= min_words:
            found.append(" ".join(run))
    return found


def html_text(markup: str) -> str:
    """What a reader sees of an HTML output: its text, one line per element."""
    return html.unescape(TAG.sub("\n", EVIDENCE.sub("", STYLE_OR_SCRIPT.sub("", markup))))


def output_texts(cell: Any) -> Iterator[str]:
    """Every text a code cell's outputs show: streams, text/html (else text/plain, unless
    the output is an image), errors."""
    for out in cell.get("outputs", []):
        if "text" in out:
            yield str(out["text"])
        data = out.get("data", {})
        if "text/html" in data:
            yield html_text(str(data["text/html"]))
        elif "text/plain" in data and "image/png" not in data:  # a plot shows its image
            yield str(data["text/plain"])
        if out.get("output_type") == "error":
            yield f"{out.get('ename')}: {out.get('evalue')}"
