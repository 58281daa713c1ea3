"""Save a PyTorch model's per-module outputs as a reference for ``ascend_lab.compare_numerics``.

Run the original PyTorch model once with forward hooks on every sub-module and write each
output to a ``.npz``, keyed by module path (``layers.0.attn``: the same path a MindSpore
port gets from ``Cell.cells_and_names`` when it keeps the attribute names). The net itself
is ``(net)``, the N-th call of a module used several times ``act#N``, the K-th tensor of a
tuple output ``attn:K``. Then, on the MindSpore side::

    r = ascend_lab.compare_numerics(port, "reference.npz", x)   # x: the same input, as NumPy
    print(r)                                                    # where the port parts ways

PyTorch is optional (ascend-lab never imports it); this file needs only ``torch`` and
``numpy``. Usage from Python::

    from torch_reference_hooks import save_reference
    save_reference(model.eval(), (torch.from_numpy(x),), "reference.npz")

or ``python scripts/torch_reference_hooks.py module:factory input.npy reference.npz``
(``factory()`` returns the model; the input is a ``.npy``).
"""

import importlib
import sys
from typing import Any, Dict, List, Sequence


def reference_key(path: str, call: int = 0, output: int = 0, outputs: int = 1) -> str:
    """The key of one output: ``path`` (``(net)`` for the root), ``#call``, ``:output``."""
    key = path or "(net)"
    if call:
        key += f"#{call}"
    if outputs > 1:
        key += f":{output}"
    return key


def _tensors(value: Any) -> List[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def collect(model: Any, inputs: Sequence[Any]) -> Dict[str, Any]:
    """Run ``model(*inputs)`` under ``torch.no_grad()``; {key: float32 NumPy array}."""
    import torch

    arrays: Dict[str, Any] = {}
    calls: Dict[str, int] = {}
    handles = []

    def make_hook(path: str) -> Any:
        def hook(module: Any, args: Any, output: Any) -> None:
            call = calls.get(path, 0)
            calls[path] = call + 1
            outs = _tensors(output)
            for i, t in enumerate(outs):
                arrays[reference_key(path, call, i, len(outs))] = t.detach().float().cpu().numpy()

        return hook

    for name, module in model.named_modules():
        handles.append(module.register_forward_hook(make_hook(name)))
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return arrays


def save_reference(model: Any, inputs: Sequence[Any], path: str) -> Dict[str, Any]:
    """:func:`collect` and write the arrays to ``path`` (``.npz``); returns them."""
    import numpy as np

    arrays = collect(model, inputs)
    np.savez(path, **arrays)
    return arrays


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    import numpy as np
    import torch

    module_name, _, factory = argv[0].partition(":")
    model = getattr(importlib.import_module(module_name), factory or "model")()
    x = torch.from_numpy(np.load(argv[1], allow_pickle=False))
    arrays = save_reference(model.eval(), (x,), argv[2])
    print(f"wrote {len(arrays)} arrays to {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
