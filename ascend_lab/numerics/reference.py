"""Reference outputs (``.npz`` file or dict of NumPy arrays) as one side of a comparison.

Keys name Cells: a Cell path (``layers.0.attn``, ``""`` or ``(net)`` for the net itself), a
MindSpore scope (``Default/layers-CellList/0-Block``), ``#N`` for the N-th call of a Cell
used several times (``act#2``), and ``:K`` for the K-th output of a Cell with several
(``attn:1``). ``scripts/torch_reference_hooks.py`` writes such a file from PyTorch.
Pure NumPy: a reference never imports MindSpore.

Budget (issue #37: a 1.5 MB ``.npz`` of zeros inflated to 1.6 GB, since the cap applied to
the compressed file): the file passes the one gate
(:func:`~ascend_lab.parsers.regular_file.open_regular`: a regular file, inside the allowed
root), and the sizes its zip headers declare for its members (what reading them yields:
the zip reader stops at the declared size and checks the CRC) must add up to at most
``max_bytes`` (:data:`MAX_REFERENCE_BYTES`), with at most :data:`MAX_MEMBERS` members,
before any member is inflated.
"""

import os
import zipfile
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ascend_lab.errors.numerics import NumericsReferenceError
from ascend_lab.model.numeric_records import OpRecord, SideRecord, op_cell, path_from_key
from ascend_lab.model.tensor_stats import SAMPLE_SIZE, TensorStats

# bytes of the arrays once read (the zip's members uncompressed), and its arrays
MAX_REFERENCE_BYTES = 512 << 20
MAX_MEMBERS = 100_000


def read_reference(source: Any, max_bytes: int = MAX_REFERENCE_BYTES) -> Dict[str, Any]:
    """A dict of arrays from a dict, an ``np.lib.npyio.NpzFile`` or a ``.npz`` path."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        from ascend_lab.parsers.regular_file import gate, open_regular

        try:
            fh = open_regular(gate(path))
        except OSError as exc:
            why = exc.strerror or exc
            raise NumericsReferenceError(f"cannot read the reference {path}: {why}") from None
        with fh:
            size = os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                raise NumericsReferenceError(
                    f"the reference {path} is {size} bytes, over the {max_bytes} byte cap"
                )
            _check_members(fh, path, max_bytes)
            fh.seek(0)
            try:
                with np.load(fh, allow_pickle=False) as npz:
                    return {k: npz[k] for k in npz.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
                raise NumericsReferenceError(f"{path} is not a .npz of arrays: {exc}") from None
    if isinstance(source, Mapping) or hasattr(source, "files"):
        return {str(k): source[k] for k in (source.files if hasattr(source, "files") else source)}
    raise NumericsReferenceError(
        f"a reference is a dict of arrays or a .npz path, got {type(source).__name__}"
    )


def _check_members(fh: Any, path: str, max_bytes: int) -> None:
    """Refuse a ``.npz`` whose members would inflate past ``max_bytes`` (module doc)."""
    try:
        with zipfile.ZipFile(fh) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise NumericsReferenceError(f"{path} is not a .npz of arrays: {exc}") from None
    if len(members) > MAX_MEMBERS:
        raise NumericsReferenceError(
            f"the reference {path} holds {len(members):,} arrays, over {MAX_MEMBERS:,}"
        )
    inflated = sum(m.file_size for m in members)
    if inflated > max_bytes:
        raise NumericsReferenceError(
            f"the reference {path} holds {inflated:,} bytes of arrays once read, over the "
            f"{max_bytes:,} byte cap"
        )


def _split_output(key: str) -> Tuple[str, int]:
    head, sep, tail = key.rpartition(":")
    if sep and tail.isdigit() and "/" not in tail:
        return head, int(tail)
    return key, 0


def reference_side(
    source: Any,
    known: Mapping[Tuple[str, int], OpRecord],
    name: str = "b",
    keep_tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
) -> SideRecord:
    """The reference as records in the other side's execution order, every key checked.

    ``known`` is the Cell side's records by (path, call). A key that names no Cell call
    there, an array of another shape, or a reference that matches nothing raise
    :class:`~ascend_lab.errors.numerics.NumericsReferenceError` naming the keys.
    """

    def resolve(base: str) -> Optional[Tuple[str, int]]:
        key = path_from_key(base)
        return key if key in known else None

    def listing() -> str:
        names = sorted(r.label for r in known.values())
        return "The net's Cells are: " + _few(names, 20)

    return _side(
        source,
        known,
        resolve,
        "name no Cell call of the net",
        listing,
        name,
        keep_tensors,
        sample_size,
    )


def reference_op_side(
    source: Any,
    known: Mapping[Tuple[str, int], OpRecord],
    name: str = "b",
    keep_tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
) -> SideRecord:
    """Reference arrays against op records (``capture="dump"``), every key checked.

    A key names an op by its label, as the comparison's table shows it (``attn/Softmax``,
    the third of them ``attn/Softmax#2``; MindSpore's own name before the scope repair,
    ``ms_key``, works too), or a Cell by its path or scope (``layers.0.attn``,
    ``Default/layers-CellList/0-Block``, ``""`` or ``(net)`` the net): a Cell is compared at
    its last op in run order (the last op scoped in it or below; a Cell called several
    times cannot be told apart op by op, so ``attn#1`` names no Cell). ``:K`` picks the
    K-th output, as for Cells. Unknown keys, two keys for one output, shapes that differ
    raise :class:`~ascend_lab.errors.numerics.NumericsReferenceError` with a few of the
    keys the net has.
    """
    records = sorted(known.values(), key=lambda r: r.index)
    by_label: Dict[str, Tuple[str, int]] = {}
    for rec in records:
        by_label[rec.label] = rec.key
    for rec in records:
        if rec.ms_key is not None:
            ms_label = rec.ms_key[0] if rec.ms_key[1] == 0 else "{}#{}".format(*rec.ms_key)
            by_label.setdefault(ms_label, rec.key)
    last_in: Dict[str, Tuple[str, int]] = {}
    for rec in records:  # run order: the last op below each Cell path wins
        cell = op_cell(rec.path)[0]
        if "/" in cell:
            continue  # an op outside the module tree (``Expand/_SiLU``): no Cell
        parts = cell.split(".") if cell else []
        for i in range(len(parts) + 1):
            last_in[".".join(parts[:i])] = rec.key

    def resolve(base: str) -> Optional[Tuple[str, int]]:
        if base in by_label:
            return by_label[base]
        cell, call = path_from_key(base)
        return last_in.get(cell) if call == 0 else None

    def listing() -> str:
        ops = [r.label for r in records]
        cells = sorted(k for k in last_in if k)
        return "The net's ops are named like: {}; its Cells: {}".format(
            _few(ops, 8), _few(cells, 12) if cells else "(net)"
        )

    return _side(
        source,
        known,
        resolve,
        "name no op or Cell of the net",
        listing,
        name,
        keep_tensors,
        sample_size,
    )


def _few(names: List[str], n: int) -> str:
    return ", ".join(names[:n]) + (" …" if len(names) > n else "")


def _side(
    source: Any,
    known: Mapping[Tuple[str, int], OpRecord],
    resolve: Callable[[str], Optional[Tuple[str, int]]],
    unknown_what: str,
    listing: Callable[[], str],
    name: str,
    keep_tensors: bool,
    sample_size: int,
) -> SideRecord:
    arrays = read_reference(source)
    if not arrays:
        raise NumericsReferenceError("the reference holds no arrays")
    grouped: Dict[Tuple[str, int], Dict[int, Any]] = {}
    named_by: Dict[Tuple[Tuple[str, int], int], str] = {}
    unknown: List[str] = []
    twice: List[str] = []
    for key, value in arrays.items():
        base, out_index = _split_output(key)
        cell_key = resolve(base)
        if cell_key is None:
            unknown.append(key)
            continue
        if (cell_key, out_index) in named_by:
            twice.append(f"{named_by[(cell_key, out_index)]!r} and {key!r}")
            continue
        named_by[(cell_key, out_index)] = key
        grouped.setdefault(cell_key, {})[out_index] = value
    if unknown:
        raise NumericsReferenceError(
            "{} reference key(s) {}: {}. {}".format(
                len(unknown),
                unknown_what,
                ", ".join(repr(k) for k in sorted(unknown)[:10]),
                listing(),
            )
        )
    if twice:
        raise NumericsReferenceError(
            "reference keys name the same output twice: " + "; ".join(twice[:10])
        )
    records: List[OpRecord] = []
    bad: List[str] = []
    for cell_key, rec in sorted(known.items(), key=lambda kv: kv[1].index):
        if cell_key not in grouped:
            continue
        outs: List[Optional[TensorStats]] = []
        for out_index, value in sorted(grouped[cell_key].items()):
            arr = np.asarray(value)
            mine = rec.outputs[out_index] if out_index < len(rec.outputs) else None
            if out_index >= len(rec.outputs) or (
                mine is not None and tuple(arr.shape) != mine.shape
            ):
                want = mine.shape if mine is not None else "none"
                given = named_by[(cell_key, out_index)]
                where = f"{rec.label}:{out_index}"
                if _split_output(given)[0] != rec.label:
                    where = f"{given!r} ({where})"
                bad.append(f"{where} is {tuple(arr.shape)} but the net gives {want}")
                continue
            while len(outs) < out_index:
                outs.append(None)  # that output is not in the reference: not compared
            outs.append(TensorStats(arr, sample_size=sample_size, keep=keep_tensors))
        records.append(
            OpRecord(rec.index, rec.path, rec.call, rec.op_type, rec.scope, "", [], outs)  # type: ignore[arg-type]
        )
    if bad:
        raise NumericsReferenceError("reference shapes differ from the net: " + "; ".join(bad[:10]))
    return SideRecord(name, "reference", records, f"reference ({len(arrays)} arrays)")
