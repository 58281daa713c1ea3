"""Send one side of ``compare_numerics(..., capture="dump")`` to its child process.

A Cell does not pickle as it is: its Primitives refuse (``cannot pickle 'Reshape' object``).
Each Primitive is rebuilt in the child from its ``init_attrs`` (what ``copy.deepcopy`` of a
Primitive does), and then given the attributes that differ from what that rebuild has:
those added or changed after ``__init__`` (``add_prim_attr``, e.g. a MatMul's
``transpose_b`` set on a built Cell) and those deleted (``del_prim_attr``).

Classes and functions defined in a notebook cell or a script's ``__main__`` cannot be
imported by the child. Such a side is pickled again with ``dill`` (a MindSpore dependency,
``recurse=True``: a function carries only the globals it names), which sends them by value;
everything importable still goes by reference. MindSpore's graph parser then needs two
things in the child that pickling does not carry:

* the source text: ``construct`` is parsed from ``inspect.getsourcelines``, which for an
  IPython cell reads :mod:`linecache` (cells are registered under names such as
  ``/tmp/ipykernel_<pid>/<hash>.py``, no file on disk). The parent sends the linecache
  entries of the files its by-value functions come from (at most
  :data:`MAX_SOURCE_BYTES` in all; a script's file on disk is read by the child itself),
  and the child installs them (with no mtime, so ``linecache.checkcache`` keeps them);
* the module namespace: MindSpore resolves a ``construct``'s global names in
  ``vars(__import__(fn.__module__))``, not in ``fn.__globals__``; the child's
  ``__main__`` is replaced by a fresh module holding the globals of every by-value
  function reachable from the net (its Cell classes, their bases, functions held by a Cell).

What cannot travel (a lambda closing over a generator, a thread, an open socket) is refused
with dill's reason. A class whose source text is nowhere (made by ``exec()``, typed into a
plain console) travels, but MindSpore cannot parse it in the child: that compile error says
so (:mod:`ascend_lab.capture.op_dump`).
"""

import io
import linecache
import pickle
import sys
import types
from typing import Any, Dict, List, Set, Tuple

from ascend_lab.errors import AscendLabError

MAX_SOURCE_BYTES = 4 << 20  # the source text sent along, in all
_MAIN = "__main__"


def _primitive(
    cls: Any, init_attrs: Dict[str, Any], changed: Dict[str, Any], removed: List[str]
) -> Any:
    """Rebuild a Primitive in the child, then apply the attributes set after ``__init__``."""
    prim = cls(**init_attrs)
    for key, value in changed.items():
        prim.add_prim_attr(key, value)
    for key in removed:
        prim.del_prim_attr(key)
    return prim


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays, Tensors: compared as different, sent
        return False


def primitive_reduce(obj: Any) -> Tuple[Any, Tuple[Any, ...]]:
    """``(rebuild, args)`` of a Primitive: its ``init_attrs`` and how its ``attrs`` differ
    from those of a Primitive built from them."""
    init = dict(getattr(obj, "init_attrs", {}))
    have = dict(getattr(obj, "attrs", {}))
    try:
        fresh = dict(type(obj)(**init).attrs)
    except Exception:  # noqa: BLE001 - no rebuild here: the child reports it
        fresh = dict(init)
    changed = {k: v for k, v in have.items() if k not in fresh or not _same(fresh[k], v)}
    removed = sorted(k for k in fresh if k not in have)
    return _primitive, (type(obj), init, changed, removed)


class _ByValue(AscendLabError):
    """The standard pickler met a class or function the child cannot import (a signal to
    pickle again by value; never leaves this module)."""


def _local(obj: Any) -> bool:
    """A class or function that pickle would send by a name the child cannot import."""
    if not isinstance(obj, (type, types.FunctionType)):
        return False
    return getattr(obj, "__module__", None) == _MAIN or "<locals>" in getattr(
        obj, "__qualname__", ""
    )


def dumps(payload: Any) -> Tuple[bytes, Dict[str, List[str]]]:
    """The pickled payload and the source lines the child needs (file name -> lines): the
    standard pickler when everything is importable, dill when a class or function is not."""
    from mindspore.ops import Primitive

    class _Pickler(pickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, Primitive):
                return primitive_reduce(obj)
            if _local(obj):
                raise _ByValue()
            return NotImplemented

    buf = io.BytesIO()
    try:
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(payload)
        return buf.getvalue(), {}
    except _ByValue:
        pass
    return _dumps_by_value(payload, Primitive)


def _dumps_by_value(payload: Any, primitive: type) -> Tuple[bytes, Dict[str, List[str]]]:
    import dill

    files: Set[str] = set()

    class _DillPickler(dill.Pickler):  # type: ignore[misc]
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, primitive):
                return primitive_reduce(obj)
            if isinstance(obj, types.FunctionType) and _local(obj):
                files.add(obj.__code__.co_filename)
            return NotImplemented

    buf = io.BytesIO()
    _DillPickler(buf, protocol=pickle.HIGHEST_PROTOCOL, recurse=True).dump(payload)
    return buf.getvalue(), source_entries(sorted(files))


def source_entries(files: List[str], cap: int = MAX_SOURCE_BYTES) -> Dict[str, List[str]]:
    """The :mod:`linecache` lines of ``files`` (those it holds, loaded ones only) while
    their text fits in ``cap`` bytes."""
    out: Dict[str, List[str]] = {}
    left = cap
    for name in files:
        entry = linecache.cache.get(name)
        if entry is None or len(entry) < 3:
            continue  # not cached (a script's file: the child reads it) or lazy
        lines = [str(line) for line in entry[2]]
        size = sum(len(line) for line in lines)
        if size > left:
            continue
        left -= size
        out[name] = lines
    return out


# -- the child ----------------------------------------------------------------------------


def install_sources(sources: Dict[str, List[str]]) -> None:
    """Put the parent's source lines into this process's :mod:`linecache` (mtime None:
    ``checkcache`` keeps them, as it keeps IPython's cells)."""
    for name, lines in sources.items():
        linecache.cache[name] = (sum(len(line) for line in lines), None, list(lines), name)


def adopt_main(net: Any) -> bool:
    """Make ``__main__`` a fresh module holding the globals of the by-value (``__main__``)
    classes and functions reachable from ``net``, where MindSpore's parser looks them up.
    False (nothing changed) when the net has none."""
    todo: List[Any] = []
    for _, cell in net.cells_and_names():
        todo.append(type(cell))
        todo.extend(v for v in vars(cell).values() if isinstance(v, types.FunctionType))
    names: Dict[str, Any] = {}
    seen: Set[int] = set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen or getattr(obj, "__module__", None) != _MAIN:
            continue
        seen.add(id(obj))
        if isinstance(obj, type):
            todo.extend(obj.__mro__[1:])
            for value in vars(obj).values():
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if isinstance(value, property):
                    todo.extend(f for f in (value.fget, value.fset) if f is not None)
                elif isinstance(value, (type, types.FunctionType)):
                    todo.append(value)
        elif isinstance(obj, types.FunctionType):
            for key, value in obj.__globals__.items():
                if key.startswith("__") and key.endswith("__"):
                    continue
                names.setdefault(key, value)
                if isinstance(value, (type, types.FunctionType)):
                    todo.append(value)
    if not seen:
        return False
    main = types.ModuleType(_MAIN)
    main.__dict__.update(names)
    sys.modules[_MAIN] = main
    return True
