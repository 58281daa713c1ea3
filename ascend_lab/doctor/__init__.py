"""``%ascend_doctor`` / ``ascend-lab doctor``: from an error text or a broken setup to the fix.

Data flow: error text (an exception, pasted text, a log file), capped by :mod:`.intake`
(the last 20 MB, long lines cut, each cut noted) -> :mod:`.match` (pure: the knowledge base
in ``knowledge/*.json`` applied to the text, in linear time) -> findings, confirmed where
possible by :mod:`.checks` (versions, environment, devices, user groups) -> one
:class:`~ascend_lab.doctor.diagnosis.Diagnosis` rendered by :mod:`.render` as text or HTML.
Nothing here imports MindSpore.
"""

from typing import Any

__all__ = ["diagnose", "diagnose_text"]


def diagnose(text: Any = None, **options: Any) -> Any:
    """Diagnose ``text`` (or only the environment when ``text`` is None)."""
    from ascend_lab.doctor.diagnosis import diagnose as _diagnose

    return _diagnose(text, **options)


def diagnose_text(text: str) -> Any:
    """Diagnose ``text`` from the knowledge base only (no machine checks)."""
    from ascend_lab.doctor.diagnosis import diagnose as _diagnose

    return _diagnose(text, check_environment=False)
