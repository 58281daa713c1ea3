"""How a model object shows itself (a text or HTML card, a plot, a payload, a widget)
without the model importing the views above it.

The model's convenience methods (``status._repr_html_()``, ``profile.show()``,
``graph.plot()``) call the view registered here under their name. The package root
(``ascend_lab/__init__.py``, the top of the layout) registers them: importing any part of
ascend_lab imports the root first, so they are always there. This keeps the one-way
layout (model below payload below render) true for function-level imports too.
"""

from typing import Any, Callable, Dict

__all__ = ["call", "register", "registered"]

_VIEWS: Dict[str, Callable[..., Any]] = {}


def register(name: str, view: Callable[..., Any]) -> None:
    """Make ``view`` the function behind ``call(name, ...)``."""
    _VIEWS[name] = view


def registered() -> Dict[str, Callable[..., Any]]:
    """Every registered view by name (a copy)."""
    return dict(_VIEWS)


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Run the view registered as ``name``."""
    try:
        view = _VIEWS[name]
    except KeyError:
        raise LookupError(
            f"no view {name!r} is registered (ascend_lab/__init__.py registers them)"
        ) from None
    return view(*args, **kwargs)
