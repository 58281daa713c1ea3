"""Reference outputs (``.npz`` file or dict of NumPy arrays) as one side of a comparison.

Keys name Cells: a Cell path (``layers.0.attn``, ``""`` or ``(net)`` for the net itself), a
MindSpore scope (``Default/layers-CellList/0-Block``), ``#N`` for the N-th call of a Cell
used several times (``act#2``), and ``:K`` for the K-th output of a Cell with several
(``attn:1``). ``scripts/torch_reference_hooks.py`` writes such a file from PyTorch.
Pure NumPy: a reference never imports MindSpore.
"""

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ascend_lab.errors.numerics import NumericsReferenceError
from ascend_lab.model.numeric_records import OpRecord, SideRecord, path_from_key
from ascend_lab.model.tensor_stats import SAMPLE_SIZE, TensorStats

MAX_REFERENCE_BYTES = 4 * 2**30


def read_reference(source: Any, max_bytes: int = MAX_REFERENCE_BYTES) -> Dict[str, Any]:
    """A dict of arrays from a dict, an ``np.lib.npyio.NpzFile`` or a ``.npz`` path."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            raise NumericsReferenceError(f"cannot read the reference {path}: {exc}") from None
        if size > max_bytes:
            raise NumericsReferenceError(
                f"the reference {path} is {size} bytes, over the {max_bytes} byte cap"
            )
        try:
            with np.load(path, allow_pickle=False) as npz:
                return {k: npz[k] for k in npz.files}
        except (OSError, ValueError) as exc:
            raise NumericsReferenceError(f"{path} is not a .npz of arrays: {exc}") from None
    if isinstance(source, Mapping) or hasattr(source, "files"):
        return {str(k): source[k] for k in (source.files if hasattr(source, "files") else source)}
    raise NumericsReferenceError(
        f"a reference is a dict of arrays or a .npz path, got {type(source).__name__}"
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
    arrays = read_reference(source)
    if not arrays:
        raise NumericsReferenceError("the reference holds no arrays")
    grouped: Dict[Tuple[str, int], Dict[int, Any]] = {}
    unknown: List[str] = []
    for key, value in arrays.items():
        base, out_index = _split_output(key)
        cell_key = path_from_key(base)
        if cell_key not in known:
            unknown.append(key)
            continue
        grouped.setdefault(cell_key, {})[out_index] = value
    if unknown:
        names = sorted(r.label for r in known.values())
        raise NumericsReferenceError(
            "{} reference key(s) name no Cell call of the net: {}. The net's Cells are: {}".format(
                len(unknown),
                ", ".join(repr(k) for k in sorted(unknown)[:10]),
                ", ".join(names[:20]) + (" …" if len(names) > 20 else ""),
            )
        )
    records: List[OpRecord] = []
    bad: List[str] = []
    for cell_key, rec in sorted(known.items(), key=lambda kv: kv[1].index):
        if cell_key not in grouped:
            continue
        outs: List[Optional[TensorStats]] = []
        for out_index, value in sorted(grouped[cell_key].items()):
            arr = np.asarray(value)
            if out_index >= len(rec.outputs) or tuple(arr.shape) != rec.outputs[out_index].shape:
                want = rec.outputs[out_index].shape if out_index < len(rec.outputs) else "none"
                bad.append(
                    f"{rec.label}:{out_index} is {tuple(arr.shape)} but the net gives {want}"
                )
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
