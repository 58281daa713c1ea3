"""How an object shows itself (a card, a plot, a payload, a widget, a page) without
importing the views above it.

A result's or a model object's convenience methods (``t.show()``, ``cmp.to_html(path)``,
``status._repr_html_()``, ``profile.plot()``) are one-line façades: ``display.call(verb, self,
...)``. There is one function per verb, bound here by the package root (``ascend_lab/__init__.py``,
the top of the layout), and each dispatches on the object's type:

=============  ============================================  ===============================
verb           bound to                                      what it gives
=============  ============================================  ===============================
``payload``    :func:`ascend_lab.payload.dispatch.to_payload`  the ``ascend-lab.graph/1`` dict
``section``    :func:`ascend_lab.payload.profile_section.profile_section`  a profile's section
``show``       :func:`ascend_lab.render.show.show`            the viewer widget
``html``       :func:`ascend_lab.render.show.to_html`         a self-contained page
``mimebundle`` :func:`ascend_lab.render.show.mimebundle`      JupyterLab's MIME bundle
``plot``       :func:`ascend_lab.render.show.plot`            a matplotlib figure
``card_html``  :func:`ascend_lab.render.cards.card_html`      the notebook card
``card_text``  :func:`ascend_lab.render.cards.card_text`      the text card
=============  ============================================  ===============================

Importing any part of ascend_lab imports the root first, so the verbs are always bound. This
keeps the one-way layout (model and results below payload below render) true for
function-level imports too. A new kind of object registers with the verb's function
(``@to_payload.register(MyResult)``); a new verb is one row here and one binding in the root.
"""

from typing import Any, Callable, Dict

__all__ = ["VERBS", "call", "register", "registered"]

VERBS = ("payload", "section", "show", "html", "mimebundle", "plot", "card_html", "card_text")

_VIEWS: Dict[str, Callable[..., Any]] = {}


def register(verb: str, view: Callable[..., Any]) -> None:
    """Make ``view`` the function behind ``call(verb, ...)``."""
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}: one of {', '.join(VERBS)}")
    _VIEWS[verb] = view


def registered() -> Dict[str, Callable[..., Any]]:
    """Every bound verb (a copy)."""
    return dict(_VIEWS)


def call(verb: str, *args: Any, **kwargs: Any) -> Any:
    """Run the function bound to ``verb``."""
    try:
        view = _VIEWS[verb]
    except KeyError:
        raise LookupError(
            f"no function is bound to {verb!r} (ascend_lab/__init__.py binds them)"
        ) from None
    return view(*args, **kwargs)
