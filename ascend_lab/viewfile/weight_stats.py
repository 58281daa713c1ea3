"""Statistics of one weight of a ``.mindir``, read from its bytes on disk in bounded chunks.

:func:`weight_stats` finds the weight with the same wire walk that opens the file without
its weights (:func:`~.mindir_skeleton.weight_records`), seeks to that tensor's bytes
(``raw_data`` in the file, or MindSpore's external data ``<name>_variables/data_N`` for
models over 1 GB) and reads them ``CHUNK_ELEMENTS`` values at a time, twice: once for
min, max, mean, std and the counts of zeros, NaN and Inf, once for the histogram over
[min, max]. Memory stays a few chunks whatever the tensor's size; the file is never read
whole. Every failure is a :class:`WeightStatsError` saying which weight of which file and
why. numpy does the arithmetic; nothing here imports MindSpore.
"""

import io
import math
import os
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from ascend_lab.errors import AscendLabError
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.mindir.mindir_skeleton import WeightRecord, weight_records
from ascend_lab.parsers.regular_file import open_folder, open_regular

CHUNK_ELEMENTS = 1 << 18  # values per read: work arrays of 2 MB (float64) each
HISTOGRAM_BINS = 32
# MindSpore's external data (serialization._split_save): <file name>_variables/data_N, each
# starting with 64 bytes: byte 0 is 1 on a little-endian writer (0: big), then 63 zeros
EXTERNAL_HEADER = 64
_EXTERNAL_RE = re.compile(r"([^/\\.][^/\\]*_variables)/(data_[0-9]{1,9})\Z")

# TensorProto.DataType code -> (the dtype name the viewer shows, numpy dtype, kind)
# kind: "f" float, "i" integer, "b" bool, "bf16" bfloat16 (numpy has none: widened by hand)
DTYPES: Dict[int, Tuple[str, str, str]] = {
    1: ("Float32", "<f4", "f"),
    2: ("UInt8", "u1", "i"),
    3: ("Int8", "i1", "i"),
    4: ("UInt16", "<u2", "i"),
    5: ("Int16", "<i2", "i"),
    6: ("Int32", "<i4", "i"),
    7: ("Int64", "<i8", "i"),
    9: ("Bool", "u1", "b"),
    10: ("Float16", "<f2", "f"),
    11: ("Float64", "<f8", "f"),
    12: ("UInt32", "<u4", "i"),
    13: ("UInt64", "<u8", "i"),
    16: ("BFloat16", "<u2", "bf16"),
    17: ("Float64", "<f8", "f"),
}
_OTHER_TYPES = {8: "String", 14: "Complex64", 15: "Complex128", 18: "QInt4x2", 0: "undefined"}


class WeightStatsError(AscendLabError):
    """A weight whose statistics cannot be computed: missing, corrupt, or of another dtype."""


class WeightStatsLimit(WeightStatsError):
    """A weight larger than the caller allows to be read for one answer."""


def weight_names(path: str) -> List[str]:
    """The weights of the ``.mindir`` at ``path``, by the names the viewer shows (without
    the ``<graph>:`` prefix), in file order."""
    return [_short(name) for name in _records(path)]


def weight_stats(
    path: str,
    name: str,
    bins: int = HISTOGRAM_BINS,
    chunk_elements: int = CHUNK_ELEMENTS,
    max_bytes: Optional[int] = None,
) -> Dict[str, Any]:
    """Statistics of weight ``name`` (as the viewer shows it, or with its ``<graph>:``
    prefix) of the ``.mindir`` at ``path``, as JSON-ready values::

        {"name", "dtype", "shape", "count", "min", "max", "mean", "std",
         "zeros", "nan", "inf", "histogram": {"edges": [...], "counts": [...]}}

    ``std`` is the population standard deviation (numpy's default). min, max, mean, std and
    the histogram cover the finite values; they are None when there is none. Booleans count
    as 0 and 1. A weight over ``max_bytes`` bytes is refused (:class:`WeightStatsLimit`)
    before any of its bytes is read.
    """
    path = os.fspath(path)
    record = _find(path, name)
    spec = DTYPES.get(record.data_type)
    label = _short(record.name)
    if spec is None:
        kind = _OTHER_TYPES.get(record.data_type, f"dtype#{record.data_type}")
        supported = ", ".join(sorted({d[0] for d in DTYPES.values()}))
        raise WeightStatsError(
            f"{path}: weight {label} has dtype {kind}; statistics are computed for {supported}"
        )
    dtype_name, np_dtype, kind = spec
    if any(d < 0 for d in record.dims):
        raise WeightStatsError(f"{path}: weight {label} has a dynamic shape {list(record.dims)}")
    count = math.prod(record.dims)
    import numpy as np

    dtype = np.dtype(np_dtype)
    expected = count * dtype.itemsize
    length = _stored_length(path, record, label)
    if length != expected:
        raise WeightStatsError(
            f"{path}: weight {label} stores {length:,} bytes, but {dtype_name} "
            f"{list(record.dims)} needs {expected:,} (the file is corrupt)"
        )
    if max_bytes is not None and length > max_bytes:
        raise WeightStatsLimit(
            f"{path}: weight {label} holds {length:,} bytes, over the limit of "
            f"{max_bytes:,} bytes read for one weight's statistics"
        )
    chunk_elements = max(1, chunk_elements)
    f, source, offset, big_endian = _open_data(path, record, label)
    dtype = dtype.newbyteorder(">" if big_endian else "<")
    with f:
        if os.fstat(f.fileno()).st_size < offset + length:
            raise WeightStatsError(
                f"{source}: weight {label} runs past the end of the file (truncated)"
            )

        def chunks() -> Any:
            """The tensor's values, ``chunk_elements`` at a time, as float64 (or int64)."""
            f.seek(offset)
            left = count
            buffer = bytearray(min(count, chunk_elements) * dtype.itemsize)
            while left:
                n = min(left, chunk_elements)
                view = memoryview(buffer)[: n * dtype.itemsize]
                if f.readinto(view) != len(view):
                    raise WeightStatsError(f"{source}: weight {label} ends early (truncated)")
                left -= n
                yield _widen(np, np.frombuffer(view, dtype=dtype), kind)

        summary = _summary(np, chunks, count)
        histogram = _histogram(np, chunks, summary, bins, kind)
    return {
        "name": label,
        "dtype": dtype_name,
        "shape": list(record.dims),
        **summary,
        "histogram": histogram,
    }


def all_weight_stats(
    path: str, progress: Optional[Callable[[int, int, str], None]] = None
) -> Dict[str, Dict[str, Any]]:
    """``{name: weight_stats(...) or {"error": message}}`` for every weight of ``path``;
    ``progress(done, total, name)`` is called after each."""
    names = weight_names(path)
    out: Dict[str, Dict[str, Any]] = {}
    for i, name in enumerate(names):
        try:
            out[name] = weight_stats(path, name)
        except WeightStatsError as exc:
            out[name] = {"error": str(exc)}
        if progress is not None:
            progress(i + 1, len(names), name)
    return out


# ---------------------------------------------------------------------------- finding


def _short(name: str) -> str:
    return name.split(":", 1)[1] if ":" in name else name


def _records(path: str) -> Dict[str, WeightRecord]:
    if not os.path.isfile(path):
        missing = "no such file" if not os.path.exists(path) else "not a .mindir file"
        raise WeightStatsError(f"{path}: {missing}")
    try:
        return weight_records(path)
    except GraphParseError as exc:
        raise WeightStatsError(str(exc)) from None
    except OSError as exc:
        raise WeightStatsError(f"{path}: cannot read it ({exc})") from None


def _find(path: str, name: str) -> WeightRecord:
    records = _records(path)
    if name in records:
        return records[name]
    matches = [r for full, r in records.items() if _short(full) == name]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise WeightStatsError(
            f"{path}: {len(matches)} weights are called {name}; give the full name "
            f"({', '.join(r.name for r in matches[:5])})"
        )
    shown = [_short(n) for n in list(records)[:8]]
    more = f", … ({len(records):,} in all)" if len(records) > len(shown) else ""
    listing = ", ".join(shown) + more if shown else "none"
    raise WeightStatsError(f"{path}: no weight named {name!r}; its weights: {listing}")


def _stored_length(path: str, record: WeightRecord, label: str) -> int:
    """How many bytes the file says the weight's data holds."""
    if record.raw_data is not None:
        return record.raw_data[1]
    if record.external is not None:
        return record.external.length
    where = (
        "in typed fields (float_data, …), which are not read"
        if record.other_data
        else "nowhere: the file holds only its shape"
    )
    raise WeightStatsError(f"{path}: weight {label} has no raw_data; its values are {where}")


def _open_data(path: str, record: WeightRecord, label: str) -> Tuple[io.FileIO, str, int, bool]:
    """``(open file, its name, offset, big-endian)`` of the weight's bytes."""
    if record.raw_data is not None:
        try:
            return open_regular(path), path, record.raw_data[0], False
        except OSError as exc:
            raise WeightStatsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    ext = record.external
    assert ext is not None  # _stored_length said so
    # a hostile model must not make us read (and describe) any other file: only MindSpore's
    # own layout is read, <name>_variables/data_N beside the model, a regular file reached
    # through no symlink, that starts with MindSpore's header
    match = _EXTERNAL_RE.match(ext.location) if len(ext.location) < 300 else None
    if match is None:
        parts = ext.location.replace("\\", "/").split("/")
        outside = not ext.location or os.path.isabs(ext.location) or ".." in parts
        raise WeightStatsError(
            f"{path}: weight {label} points at external data {ext.location[:300]!r}, "
            + (
                "outside the model's folder; not read"
                if outside
                else "which is not MindSpore's <name>_variables/data_N; not read"
            )
        )
    if ext.offset < EXTERNAL_HEADER:
        raise WeightStatsError(
            f"{path}: weight {label} starts at byte {ext.offset} of {ext.location}, inside "
            f"its {EXTERNAL_HEADER}-byte header (the file is corrupt); not read"
        )
    folder = os.path.dirname(os.path.abspath(path))
    variables, data = match.group(1), match.group(2)
    try:
        folder_fd = open_folder(os.path.join(folder, variables))
    except FileNotFoundError:
        raise WeightStatsError(
            f"{path}: weight {label} is stored in {ext.location}, which is missing "
            "(copy the model's _variables folder next to it)"
        ) from None
    except OSError as exc:
        raise WeightStatsError(
            f"{path}: weight {label} is stored in {variables}, which is not a folder "
            f"(or a symbolic link); not read ({exc.strerror or exc})"
        ) from None
    try:
        f = open_regular(data, dir_fd=folder_fd)
    except FileNotFoundError:
        raise WeightStatsError(
            f"{path}: weight {label} is stored in {ext.location}, which is missing "
            "(copy the model's _variables folder next to it)"
        ) from None
    except OSError as exc:
        raise WeightStatsError(
            f"{path}: weight {label} is stored in {ext.location}: {exc.strerror or exc}"
        ) from None
    finally:
        os.close(folder_fd)
    source = os.path.join(os.path.dirname(path), ext.location)
    header = f.read(EXTERNAL_HEADER)
    if len(header) != EXTERNAL_HEADER or header[0] > 1 or any(header[1:]):
        f.close()
        raise WeightStatsError(
            f"{source}: does not start with MindSpore's {EXTERNAL_HEADER}-byte header "
            "(byte order, then zeros); not read"
        )
    return f, source, ext.offset, header[0] == 0


# ---------------------------------------------------------------------------- arithmetic


def _widen(np: Any, values: Any, kind: str) -> Any:
    """Values in a dtype that holds them exactly for the sums (float64, or int64/uint64)."""
    if kind == "bf16":  # bfloat16 is the upper half of a float32
        return (values.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if kind == "f":
        return values.astype(np.float64)
    if kind == "b":
        return (values != 0).astype(np.int64)
    return values.astype(np.uint64 if values.dtype.kind == "u" else np.int64)


def _summary(np: Any, chunks: Callable[[], Any], count: int) -> Dict[str, Any]:
    zeros = nan = inf = finite = 0
    low: Any = None
    high: Any = None
    mean = m2 = 0.0  # Chan et al.'s merge of per-chunk means and squared deviations
    for values in chunks():
        zeros += int(np.count_nonzero(values == 0))
        if values.dtype.kind == "f":
            nans = np.isnan(values)
            infs = np.isinf(values)
            nan += int(np.count_nonzero(nans))
            inf += int(np.count_nonzero(infs))
            values = values[~(nans | infs)]
        n = int(values.size)
        if not n:
            continue
        lo, hi = values.min(), values.max()
        low = lo if low is None else min(low, lo)
        high = hi if high is None else max(high, hi)
        as_float = values.astype(np.float64, copy=False)
        chunk_mean = float(as_float.mean())
        chunk_m2 = float(np.square(as_float - chunk_mean).sum())
        total = finite + n
        delta = chunk_mean - mean
        mean += delta * n / total
        m2 += chunk_m2 + delta * delta * finite * n / total
        finite = total
    return {
        "count": count,
        "min": _number(low),
        "max": _number(high),
        "mean": mean if finite else None,
        "std": math.sqrt(m2 / finite) if finite else None,
        "zeros": zeros,
        "nan": nan,
        "inf": inf,
    }


def _number(value: Any) -> Any:
    if value is None:
        return None
    return (
        int(value)
        if getattr(value, "dtype", None) is not None and value.dtype.kind in "iu"
        else float(value)
    )


def _histogram(
    np: Any, chunks: Callable[[], Any], summary: Dict[str, Any], bins: int, kind: str
) -> Dict[str, List[Any]]:
    low, high = summary["min"], summary["max"]
    if low is None:
        return {"edges": [], "counts": []}
    span = (float(low), float(high))
    if kind in ("i", "b"):
        # whole numbers: bins of equal integer width, the last one ending after max
        bins = max(1, min(bins, int(high) - int(low) + 1))
        span = (float(low), float(high) + 1.0)
    elif low == high:  # one value: one bin holding all
        return {
            "edges": [span[0], span[1]],
            "counts": [summary["count"] - summary["nan"] - summary["inf"]],
        }
    counts = np.zeros(bins, dtype=np.int64)
    edges = np.linspace(span[0], span[1], bins + 1)  # the edges np.histogram uses
    for values in chunks():
        if values.dtype.kind == "f":
            values = values[np.isfinite(values)]
        # equal bins over a given range: numpy's arithmetic path, no sort of the values
        counts += np.histogram(values, bins=bins, range=span)[0]
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}
