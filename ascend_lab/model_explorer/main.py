"""The adapter Model Explorer loads for ``--extensions=ascend_lab.model_explorer`` (it
imports ``<extension>.main`` and registers every ``Adapter`` subclass defined there).

A dump folder is named ``<folder>/*.ir`` in Model Explorer's path box (its page picks an
adapter by the name's extension). ``convert(path)`` opens ``path`` through ascend-lab's
table of sources, takes its payload (a dump folder's changed passes included) and hands
Model Explorer the graphs of
:func:`ascend_lab.model_explorer.convert.graph_dicts`. A path ascend-lab cannot show raises
its one-line reason, which Model Explorer shows in its error box.
"""

import os
from typing import Any, Dict, List

import dacite
from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs, graph_builder

from ascend_lab.model_explorer import ADAPTER_ID
from ascend_lab.model_explorer.convert import graph_dicts

__all__ = ["MindSporeAdapter", "load_payload", "to_graphs"]


FOLDER_GLOB = "*.ir"


def model_path(path: str) -> str:
    """What the user named: ``<folder>/*.ir`` is the dump folder (Model Explorer's page
    picks an adapter by the name's extension, and a folder has none)."""
    if os.path.basename(path) == FOLDER_GLOB:
        return os.path.dirname(path) or "."
    return path


def load_payload(path: str) -> Dict[str, Any]:
    """The payload of ``path`` through the source table (a dump folder: its changed passes)."""
    from ascend_lab.viewfile.sources import ViewFileError, payload_for_path

    path = model_path(path)
    try:
        return payload_for_path(path, passes="changed")
    except ViewFileError as exc:
        raise ValueError(str(exc)) from None  # Model Explorer shows "ValueError: <reason>"


def to_graphs(dicts: List[Dict[str, Any]]) -> List[Any]:
    """Model Explorer's ``graph_builder.Graph`` objects of :func:`graph_dicts`' dicts."""
    config = dacite.Config(check_types=False)
    return [dacite.from_dict(graph_builder.Graph, d, config=config) for d in dicts]


class MindSporeAdapter(Adapter):
    """MindSpore graphs through ascend-lab: .mindir, .ir, dump folders, saved payloads."""

    metadata = AdapterMetadata(
        id=ADAPTER_ID,
        name="MindSpore (ascend-lab)",
        description="MindSpore .mindir, .ir / .dat dumps (analyze_fail too), dump folders "
        "(<folder>/*.ir: one graph per pass) and saved ascend-lab payloads; scopes and fused "
        "kernels are layers",
        fileExts=["mindir", "ir", "dat", "json"],
    )

    def __init__(self) -> None:
        super().__init__()

    def convert(self, model_path: str, settings: Dict[str, Any]) -> ModelExplorerGraphs:
        return {"graphs": to_graphs(graph_dicts(load_payload(model_path)))}
