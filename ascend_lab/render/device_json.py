"""The status JSON's shown texts in the reader's language, for the front end.

``GET ascend-lab/api/status?lang=zh_CN`` adds a ``display`` object; every other field
stays English (machine-readable, the schema's). Each shown text is rendered from its
structured form (the ``i18n`` entry beside it: template and arguments, see
``status.schema.json``); a text without one (a plain word such as ``"CPU mode"``, or a
status from an older ascend-lab) is looked up whole in the catalogue. The front end shows
``display`` texts when present and falls back to the English fields.
"""

import json
from typing import Any, Dict, Mapping, Optional

from ascend_lab.i18n import ENGLISH, localize, normalize, text_of


def shown(obj: Mapping[str, Any], name: str, lang: str) -> str:
    """``obj[name]`` in ``lang``: from ``obj["i18n"][name]`` when it is there."""
    return localize(text_of(obj, name), lang)


def display(status: Mapping[str, Any], lang: str) -> Dict[str, Any]:
    """``{"lang", "summary", "reason", "compatibility", "warnings": [{message, fix}]}``."""
    warnings = []
    for w in status.get("warnings") or []:
        if isinstance(w, dict):
            warnings.append(
                {
                    "message": shown(w, "message", lang),
                    "fix": shown(w, "fix", lang),
                    "severity": localize(str(w.get("severity", "")), lang),
                }
            )
    comp = status.get("compatibility")
    return {
        "lang": lang,
        "summary": shown(status, "summary", lang),
        "reason": shown(status, "reason", lang),
        "compatibility": shown(comp, "message", lang) if isinstance(comp, dict) else "",
        "warnings": warnings,
    }


def with_display(text: str, lang: Optional[str]) -> str:
    """The status JSON text, with ``display`` added for a language other than English."""
    lang = normalize(lang)
    if lang is None or lang == ENGLISH:
        return text
    try:
        status = json.loads(text)
    except ValueError:  # not ours to fix: pass it on as it is
        return text
    if not isinstance(status, dict):
        return text
    status["display"] = display(status, lang)
    return json.dumps(status, ensure_ascii=False)
