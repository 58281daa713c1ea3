"""Messages in the reader's language: gettext, the ecosystem's standard, and one mechanism.

Catalogues: ``ascend_lab/locale/<lang>/LC_MESSAGES/ascend_lab_py.po`` (source) and ``.mo``
(compiled by ``scripts/msgfmt.py``, committed; a test checks they agree). The domain is
separate from the front end's ``ascend_lab`` domain: that one uses JupyterLab's ``%1``
placeholders and is served to the browser as Jed JSON; these use Python's ``{}``.

One language type: :data:`ENGLISH` (``"en"``) and :data:`CHINESE` (``"zh_CN"``), chosen by
:func:`choose`; :func:`normalize` reads any tag, :func:`edition_tag` gives the course's
two-letter folder name. The course, the exercises and the server use the same codes.

Messages are English where they are made (so JSON output and payloads stay English) and
are translated where they are shown:

- ``_("text")`` translates now, in the current language (:func:`using`);
- ``N_("text")`` only marks a message for the catalogue (translated later with ``_``);
- ``msg("template {}", arg)`` is an English ``str`` that keeps its template and arguments,
  so a view shows it in its reader's language (:func:`localize`); :func:`to_json` /
  :func:`from_json` carry it through JSON (the status's ``i18n`` entries) and
  :func:`text_of` reads it back. A message made in one place and shown in another is a
  ``msg``, never an f-string: a plain string is only looked up whole.

argparse's own error messages are the one exception (they are formatted in English before
we see them): :mod:`.magic_args` finds which of its few templates made one.

The course's exercises (``ascend_lab/exercises``) keep their checks, hints and pointers as
``Text(en, zh)`` pairs beside the code that checks each notebook, and its code cells use
``tr(en, zh)``: that is course content, written and reviewed with its notebook as the two
editions of the notebooks are, not catalogue messages (see CONTRIBUTING.md, "Messages and
languages"). They pick their text with the same language codes.
"""

import argparse
import contextlib
import contextvars
import gettext
import os
import unicodedata
from typing import Any, Dict, Iterator, List, Mapping, Optional

# the one pair of language codes, used by messages, the course and the exercises alike
from ascend_lab.i18n.edition import CHINESE, ENGLISH, from_context, kernel_folders

DOMAIN = "ascend_lab_py"
LOCALEDIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale")
LANGUAGES = (ENGLISH, CHINESE)
ENV_LANG = "ASCEND_LAB_LANG"
_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")

_current: "contextvars.ContextVar[str]" = contextvars.ContextVar("ascend_lab_lang", default="")
_translations: Dict[str, gettext.NullTranslations] = {}


def normalize(tag: Optional[str]) -> Optional[str]:
    """``"zh"``, ``"zh-CN"``, ``"zh_CN.UTF-8"`` -> ``"zh_CN"``; ``"en_US"`` -> ``"en"``;
    ``"C"``, ``"POSIX"``, ``""`` and unknown languages -> None (look further)."""
    if not tag:
        return None
    base = tag.strip().split(".", 1)[0].split("@", 1)[0].replace("-", "_").lower()
    if base == "zh" or base.startswith("zh_"):
        return CHINESE
    if base == "en" or base.startswith("en_"):
        return ENGLISH
    return None


def edition_tag(lang: Optional[str]) -> str:
    """The two-letter name of ``lang``'s course edition: ``"zh"`` for Chinese (the
    ``notebooks/zh`` folder, the course endpoint's ``lang``), else ``"en"``."""
    return "zh" if normalize(lang) == CHINESE else "en"


def language_argument(value: str) -> str:
    """``--lang`` of the command lines and magics (an argparse ``type``): a language we
    have, else an error argparse shows as it is."""
    lang = normalize(value[:64])
    if lang is None:
        raise argparse.ArgumentTypeError(
            _("unknown language {!r}: use zh or en").format(value[:64])
        )
    return lang


def choose(explicit: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> str:
    """The language: ``explicit`` (a flag/argument), else the course edition of the notebook
    a Jupyter kernel serves (:mod:`.edition`: ``notebooks/zh/...`` is Chinese), else
    :func:`from_environment` (``$ASCEND_LAB_LANG``, then the locale), else English.

    The exercises decide the same way (:func:`ascend_lab.exercises.language.edition`).
    """
    env = os.environ if env is None else env
    if explicit:
        return normalize(explicit) or ENGLISH
    return from_context(env, kernel_folders(env)) or from_environment(env)


def from_environment(env: Optional[Mapping[str, str]] = None) -> str:
    """``$ASCEND_LAB_LANG``, else the first set of ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``
    (zh_* -> Chinese), else English.

    A value naming a language we have no catalogue for counts as English where it is set
    (``LANG=fr_FR`` gives English, not the next variable), as gettext itself does.
    """
    env = os.environ if env is None else env
    for name in (ENV_LANG,) + _LOCALE_VARS:
        value = env.get(name, "")
        if value:
            return normalize(value[:64]) or ENGLISH
    return ENGLISH


def from_accept_language(header: Optional[str]) -> Optional[str]:
    """The first language of an HTTP ``Accept-Language`` we have (q-values in order)."""
    if not header:
        return None
    ranked = []
    for i, part in enumerate(header[:1000].split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag))
    for _q, _i, tag in sorted(ranked):
        lang = normalize(tag)
        if lang is not None:
            return lang
    return None


def translation(lang: str) -> gettext.NullTranslations:
    """The gettext catalogue for ``lang`` (English: no catalogue, messages as written)."""
    lang = normalize(lang) or ENGLISH
    found = _translations.get(lang)
    if found is None:
        if lang == ENGLISH:
            found = gettext.NullTranslations()
        else:
            found = gettext.translation(DOMAIN, LOCALEDIR, languages=[lang], fallback=True)
        _translations[lang] = found
    return found


def current() -> str:
    """The language set by :func:`using`, else the one :func:`choose` finds."""
    return _current.get() or choose()


@contextlib.contextmanager
def using(lang: Optional[str]) -> Iterator[str]:
    """Show messages in ``lang`` (None: :func:`choose`) inside the block."""
    chosen = choose(lang)
    token = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translation(current()).gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue; it is translated where it is shown."""
    return message


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def ljust(text: str, width: int) -> str:
    """``text.ljust(width)`` in terminal columns, so tables of Chinese labels line up."""
    return text + " " * max(0, width - display_width(text))


def rjust(text: str, width: int) -> str:
    """``text.rjust(width)`` in terminal columns."""
    return " " * max(0, width - display_width(text)) + text


class Msg(str):
    """An English message that remembers its template and arguments."""

    template: str
    args: tuple

    def __new__(cls, template: str, *args: Any) -> "Msg":
        self = super().__new__(cls, template.format(*args))
        self.template = template
        self.args = args
        return self

    def __reduce__(self) -> Any:
        return (Msg, (self.template,) + tuple(self.args))


MAX_TEMPLATE = 2000  # characters of a template read back from JSON
MAX_ARGS = 20
MAX_DEPTH = 4  # a message's argument may be a message, and so on, this deep


def to_json(text: Any) -> Any:
    """The structured form of a :class:`Msg`: ``{"template": ..., "args": [...]}`` (an
    argument that is itself a message nests; numbers stay numbers, anything else is its
    ``str``); None for a plain string (it is shown as it is, or looked up whole)."""
    if not isinstance(text, Msg):
        return None
    args: List[Any] = []
    for a in text.args:
        nested = to_json(a)
        if nested is not None:
            args.append(nested)
        elif a is None or isinstance(a, (bool, int, float)):
            args.append(a)
        else:
            args.append(str(a))
    return {"template": text.template, "args": args}


def from_json(data: Any, depth: int = 0) -> Optional[str]:
    """The :class:`Msg` a :func:`to_json` dict describes (read back from the status JSON,
    a report bundle, another process); None if ``data`` is not one (too long, too deep,
    or a template its arguments do not fill)."""
    if depth > MAX_DEPTH or not isinstance(data, dict):
        return None
    template, raw = data.get("template"), data.get("args", [])
    if not isinstance(template, str) or len(template) > MAX_TEMPLATE:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_ARGS:
        return None
    args: List[Any] = []
    for a in raw:
        if isinstance(a, dict):
            nested = from_json(a, depth + 1)
            if nested is None:
                return None
            args.append(nested)
        elif a is None or isinstance(a, (bool, int, float, str)):
            args.append(a)
        else:
            return None
    try:
        return Msg(template, *args)
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def text_of(obj: Mapping[str, Any], name: str) -> str:
    """``obj[name]`` of a JSON object whose texts may be structured (the status's
    ``{"message": ..., "i18n": {"message": {"template", "args"}}}``): the :class:`Msg`
    its ``i18n`` entry describes, else the text as it is ("" when absent)."""
    structured = obj.get("i18n")
    if isinstance(structured, dict):
        found = from_json(structured.get(name))
        if found is not None:
            return found
    value = obj.get(name)
    if isinstance(value, Msg):
        return value
    return "" if value is None else str(value)


def msg(template: str, *args: Any) -> str:
    """``template.format(*args)`` in English, translatable later by :func:`localize`.

    Typed as ``str`` (it is one: a :class:`Msg`) so lists of messages are ``List[str]``.
    """
    return Msg(template, *args)


def localize(text: Any, lang: Optional[str] = None) -> str:
    """``text`` in ``lang`` (default: the current language).

    A :class:`Msg` is translated from its template (its arguments localized too); a plain
    string is looked up whole. Anything not in the catalogue is returned as it is.
    """
    chosen = normalize(lang) if lang else current()
    if chosen is None or chosen == ENGLISH or text is None:
        return "" if text is None else str(text)
    cat = translation(chosen)
    if isinstance(text, Msg):
        args = [localize(a, chosen) if isinstance(a, str) else a for a in text.args]
        return _format(cat.gettext(text.template), args, str(text))
    text = str(text)
    return cat.gettext(text) if text.strip() else text


def _format(template: str, args: Any, fallback: str) -> str:
    try:
        return template.format(*args)
    except (IndexError, KeyError, ValueError):  # a broken translation shows the English
        return fallback


class Localized:
    """Shows ``obj`` (anything with ``_repr_html_`` / ``to_text``) in ``lang``: what
    ``%ascend_status --lang zh`` returns, since the notebook renders the result later."""

    def __init__(self, obj: Any, lang: str) -> None:
        self.obj = obj
        self.lang = lang

    def __getattr__(self, name: str) -> Any:
        return getattr(self.obj, name)

    def _repr_html_(self) -> str:
        with using(self.lang):
            return self.obj._repr_html_()

    def to_text(self) -> str:
        with using(self.lang):
            return self.obj.to_text()

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return repr(self.obj)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.to_text())
