"""Run a course notebook with nbclient; shared by the course tests."""

import os
from typing import Any, Dict, List

import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOKS = os.path.join(ROOT, "notebooks")

EXPECTED = [
    "00_stack_and_machine.ipynb",
    "01_one_conv2d.ipynb",
    "02_python_to_mindir.ipynb",
    "03_graph_compilation.ipynb",
    "04_memory_reuse.ipynb",
    "05_execution_on_device.ipynb",
    "05b_host_and_device.ipynb",
    "06_training_mixed_precision.ipynb",
    "07_deployment.ipynb",
    "08_parallel_training.ipynb",
    "09_migration.ipynb",
    "09b_troubleshooting.ipynb",
    "10_day_one_on_ascend.ipynb",
]


def kernel_env() -> Dict[str, str]:
    """The kernel's environment: this checkout importable, matplotlib's inline backend."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    env.pop("MPLBACKEND", None)
    return env


def execute(path: str, kernel: str = "python3", timeout: int = 600) -> Any:
    """Execute the notebook at ``path`` in its folder; raises CellExecutionError on error."""
    nb = nbformat.read(path, as_version=4)
    execute_in_place(nb, path, kernel, timeout)
    return nb


def execute_in_place(nb: Any, path: str, kernel: str = "python3", timeout: int = 600) -> None:
    """Run ``nb`` (read from ``path``) in the notebook's folder, filling its outputs."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        kernel_name=kernel,
        timeout=timeout,
        resources={"metadata": {"path": os.path.dirname(path)}},
    )
    client.execute(env=kernel_env())


def execute_twice(
    first: Any, second: Any, path: str, kernel: str = "python3", timeout: int = 600
) -> None:
    """Run ``first`` then ``second`` (two versions of the notebook at ``path``) in one kernel,
    as a learner who runs all, fills in answers and runs all again: a notebook must not
    depend on the state the kernel starts in (its current folder, a fresh import)."""
    from nbclient import NotebookClient
    from nbclient.util import run_sync

    client = NotebookClient(
        first,
        kernel_name=kernel,
        timeout=timeout,
        resources={"metadata": {"path": os.path.dirname(path)}},
    )

    async def both() -> None:
        client.reset_execution_trackers()
        async with client.async_setup_kernel(env=kernel_env()):
            for nb in (first, second):
                client.nb = nb
                for index, cell in enumerate(nb.cells):
                    await client.async_execute_cell(
                        cell, index, execution_count=client.code_cells_executed + 1
                    )

    run_sync(both)()


def output_text(cell: Any) -> str:
    parts: List[str] = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(str(out["text"]))
        data = out.get("data", {})
        if "text/plain" in data:
            parts.append(str(data["text/plain"]))
        if out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "\n".join(parts)


def tagged(nb: Any, tag: str) -> List[Any]:
    return [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]
