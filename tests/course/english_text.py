"""What counts as "an English sentence" in a notebook's printed output (issue #29).

A run of at least :data:`MIN_WORDS` consecutive English words, where a word is a token of
Latin letters only, lower case after its first letter (``found``, ``Ascend``, ``kernel's``).
What a learner reads as code or as a name is no word and breaks a run:

- identifiers and paths: a token holding a digit, ``_``, ``.`` inside, ``/``, ``-``, ``=``,
  ``%`` or ``@`` (``npu-smi``, ``device_target``, ``/tmp/x``, ``8.0.RC2``);
- names in CamelCase or capitals (``MindSpore``, ``ConvBNReLU``, ``CANN``, ``PATH``);
- anything in backticks;
- Chinese text and full-width punctuation break a run;
- punctuation that ends a clause (``.:;!?|``) ends the run after its word.

Lines a tool printed as they are, that no catalogue can translate, are left out:
``npu-smi``'s table (lines framed by ``|`` / ``+``) and MindSpore's own log lines
(``[WARNING] ME(...)``, the profiler's ``[pid] Parsing: ...``).

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
TOOL_LINE = re.compile(r"^\s*(?:[|+]|\[(?:WARNING|INFO|ERROR|DEBUG|EXCEPTION)\] |\[\d+\] )")
CODE_SPAN = re.compile(r"`[^`\n]*`")
STYLE_OR_SCRIPT = re.compile(r"<(style|script)\b[^>]*>[^<]*</\1\s*>", re.I)
TAG = re.compile(r"<[^<>]*>")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Chinese text and full-width punctuation end an English run like a clause break does
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def word(token: str) -> bool:
    """``token`` (with its brackets and punctuation) is an English word, not a name."""
    core = token.lstrip(OPENERS).rstrip(CLOSERS)
    if not WORD.fullmatch(core):
        return False
    return not (len(core) > 1 and core.isupper())


def sentences(text: str, min_words: int = MIN_WORDS) -> List[str]:
    """The English sentences (runs of ``min_words`` words or more) in ``text``."""
    found: List[str] = []
    for line in ANSI.sub("", text).splitlines():
        if TOOL_LINE.match(line):
            continue
        run: List[str] = []
        for token in CJK.sub(" | ", CODE_SPAN.sub(" | ", line)).split():
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
    return html.unescape(TAG.sub("\n", STYLE_OR_SCRIPT.sub("", markup)))


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
