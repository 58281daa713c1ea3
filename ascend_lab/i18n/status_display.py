"""The status JSON's shown texts in another language, for the front end.

``GET ascend-lab/api/status?lang=zh_CN`` adds a ``display`` object; every other field
stays English (machine-readable, the schema's). The front end shows ``display`` texts when
present and falls back to the English fields.
"""

import json
from typing import Any, Dict, Optional

from ascend_lab.i18n import ENGLISH, localize, normalize


def display(status: Dict[str, Any], lang: str) -> Dict[str, Any]:
    """``{"lang", "summary", "reason", "compatibility", "warnings": [{message, fix}]}``."""
    warnings = []
    for w in status.get("warnings") or []:
        if isinstance(w, dict):
            warnings.append(
                {
                    "message": localize(str(w.get("message", "")), lang),
                    "fix": localize(str(w.get("fix", "")), lang),
                    "severity": localize(str(w.get("severity", "")), lang),
                }
            )
    comp = status.get("compatibility") or {}
    return {
        "lang": lang,
        "summary": localize(str(status.get("summary", "")), lang),
        "reason": localize(str(status.get("reason", "")), lang),
        "compatibility": localize(str(comp.get("message", "")), lang),
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
