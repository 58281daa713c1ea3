"""A small progress indicator: one updating line in a notebook, silent elsewhere.

Callers pass texts already in the reader's language (``ascend_lab.i18n._``).

Interactive means: running inside an IPython kernel with a front end (not a plain terminal
IPython) and neither ``CI`` nor ``ASCEND_LAB_QUIET`` set. ``ASCEND_LAB_PROGRESS=1``/``0`` forces it
on or off.
"""

import html
import os
import time
from typing import Any, Optional

from ascend_lab import settings


def is_interactive() -> bool:
    forced = settings.get("ASCEND_LAB_PROGRESS")  # None when unset (or garbage: a problem)
    if forced is not None:
        return bool(forced)
    if os.environ.get("CI") or settings.get("ASCEND_LAB_QUIET"):  # any non-empty value
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


class Progress:
    """``step(text)`` updates one line; ``done(text)`` finishes it. No-ops when silent."""

    def __init__(self, title: str, enabled: Optional[bool] = None) -> None:
        self.title = title
        self.enabled = is_interactive() if enabled is None else enabled
        self._handle: Any = None
        self._start = time.perf_counter()
        self.messages = []  # type: list

    def _render(self, text: str, final: bool = False) -> Any:
        from IPython.display import HTML

        elapsed = time.perf_counter() - self._start
        mark = "&#10003;" if final else "&#8987;"
        return HTML(
            '<div class="ascend-lab-progress" style="font-family:monospace">'
            f"{mark} {html.escape(self.title)}: {html.escape(text)} "
            f"<span style='opacity:0.6'>({elapsed:.1f} s)</span></div>"
        )

    def step(self, text: str) -> None:
        self.messages.append(text)
        if not self.enabled:
            return
        try:
            if self._handle is None:
                from IPython.display import display

                self._handle = display(self._render(text), display_id=True)
            else:
                self._handle.update(self._render(text))
        except Exception:  # a broken display must never break a trace
            self.enabled = False

    def done(self, text: Optional[str] = None) -> None:
        """Finish the line with ``text`` (default: "done" in the reader's language)."""
        if text is None:
            from ascend_lab.i18n import _

            text = _("done")
        self.messages.append(text)
        if not self.enabled or self._handle is None:
            return
        try:
            self._handle.update(self._render(text, final=True))
        except Exception:
            self.enabled = False
