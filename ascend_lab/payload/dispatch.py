"""``to_payload(obj)``: any result or model object -> its ``ascend-lab.graph/1`` document.

One function that dispatches on the object's type (``functools.singledispatch``), the way
anywidget has one widget contract: a Trace, a Comparison, a NumericsResult (on a trace), a
Profile, or a payload dict (checked and returned). A new kind of result is one
``@to_payload.register`` here, next to its section builder. The results' own ``to_payload()``
methods are façades over this (through :mod:`ascend_lab.model.display`, which the package
root binds), so a result never imports the payload.
"""

import functools
import time
import weakref
from typing import Any, Dict

from ascend_lab.model.profile import Profile
from ascend_lab.payload.build import build_payload
from ascend_lab.payload.validate import check_payload
from ascend_lab.results.comparison import Comparison
from ascend_lab.results.numerics import NumericsResult
from ascend_lab.results.trace import Trace

__all__ = ["to_payload"]


@functools.singledispatch
def to_payload(obj: Any, **options: Any) -> Dict[str, Any]:
    """The ``ascend-lab.graph/1`` payload of ``obj`` (see the registered types)."""
    raise TypeError(
        f"no payload for a {type(obj).__name__}: ascend-lab views take a trace, a comparison, "
        "a numerics result (with its trace), a profile or a payload dict"
    )


@to_payload.register(dict)
def _checked(obj: Dict[str, Any], **options: Any) -> Dict[str, Any]:
    check_payload(obj)
    return obj


@to_payload.register(Trace)
def _trace(obj: Trace, **options: Any) -> Dict[str, Any]:
    return build_payload(obj, **options)


# A comparison's payload, built once: to_html and show after it (%ascend_compare --html does
# both) reuse it. Kept here, not on the result, and only while the comparison lives.
_COMPARISON_PAYLOADS: "weakref.WeakKeyDictionary[Comparison, Dict[str, Any]]" = (
    weakref.WeakKeyDictionary()
)


@to_payload.register(Comparison)
def _comparison(obj: Comparison, **options: Any) -> Dict[str, Any]:
    payload = _COMPARISON_PAYLOADS.get(obj)
    if payload is None:
        from ascend_lab.payload.compare_section import comparison_payload

        started = time.perf_counter()
        payload = _COMPARISON_PAYLOADS[obj] = comparison_payload(obj)
        # where compare()'s time went (its record, which benchmarks read), not a cache
        obj.seconds["payload"] = time.perf_counter() - started
    return payload


@to_payload.register(NumericsResult)
def _numerics(obj: NumericsResult, trace: Any = None, **options: Any) -> Dict[str, Any]:
    from ascend_lab.payload.numerics_section import attach

    if trace is None:
        raise TypeError("a numerics result is drawn on a trace: to_payload(result, trace=t)")
    payload = attach(to_payload(trace, passes="none", memory=False), obj)
    check_payload(payload)
    return payload


@to_payload.register(Profile)
def _profile(obj: Profile, **options: Any) -> Dict[str, Any]:
    from ascend_lab.payload.profile_section import profile_payload

    return profile_payload(obj)
