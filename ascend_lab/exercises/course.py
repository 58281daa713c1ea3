"""The course's exercises: two or three per notebook, keyed by its file name's prefix ("05b").

Each notebook's checks live in their own module (``nbNN_<notebook>.py``: the verifiers, their
hints and the solutions); this module is the table of them. Every verifier computes the right
answer itself, from what the notebook built (a trace, a plan, a parsed ``npu-smi`` table, a
net) or from an invariant (a formula, a simulation), never from a value the learner's cell
produced. MindSpore and NumPy are imported inside the verifiers that need them: importing this
module stays cheap.
"""

import importlib
from typing import Dict, Tuple

from ascend_lab.exercises.core import Exercise

# One module per notebook, named after its file: nbNN_<notebook>.py (one row per notebook)
NOTEBOOK_MODULES = (
    "nb00_stack_and_machine",
    "nb01_one_conv2d",
    "nb02_python_to_mindir",
    "nb03_graph_compilation",
    "nb04_memory_reuse",
    "nb05_execution_on_device",
    "nb05b_host_and_device",
    "nb06_training_mixed_precision",
    "nb07_deployment",
    "nb08_parallel_training",
    "nb09_migration",
    "nb09b_troubleshooting",
    "nb10_day_one_on_ascend",
)
EXERCISES: Dict[str, Tuple[Exercise, ...]] = {
    name[2:].split("_", 1)[0]: importlib.import_module(f"ascend_lab.exercises.{name}").EXERCISES
    for name in NOTEBOOK_MODULES
}


def exercises(notebook: str) -> Tuple[Exercise, ...]:
    """The exercises of notebook ``"NN"`` (or ``"05b"``) in order: ``q1, q2 = exercises("03")``;
    a notebook's file name works too (``"05b_host_and_device"``)."""
    try:
        return EXERCISES[str(notebook).split("_", 1)[0]]
    except KeyError:
        raise KeyError(
            f"no exercises for notebook {notebook!r}; known: {sorted(EXERCISES)}"
        ) from None
