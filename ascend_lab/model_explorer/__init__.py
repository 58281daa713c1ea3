"""MindSpore in Model Explorer: an adapter extension and node data (issue #40).

Model Explorer (``pip install "ascend-lab[model-explorer]"``) is Google's graph viewer. Run

    model-explorer --extensions=ascend_lab.model_explorer

and open a ``.mindir``, a ``.ir`` dump, a dump folder (each pass one graph: the graph list is
the pass timeline), an ``analyze_fail.ir`` or a saved ascend-lab payload (``.json``). Every
path is opened through ascend-lab's table of sources (:mod:`ascend_lab.viewfile.sources`)
and drawn from its payload (:mod:`.convert`): no second parser.

- :mod:`.convert`: payload -> Model Explorer graphs (pure dicts);
- :mod:`.main`: the adapter Model Explorer loads (``<extension>.main``);
- :mod:`.node_data`: kernel time, tensor size and lifetime, relative error and
  added/removed/changed as Model Explorer node data (``--node_data_paths``);
- :func:`show`: a trace (or any result with ``to_payload``) in Model Explorer from a notebook.

Only this package imports ``model_explorer``, and only in functions (see ``.importlinter``):
nothing else in ascend-lab needs it installed.
"""

ADAPTER_ID = "ascend_lab_mindspore"
EXTENSION = "ascend_lab.model_explorer"  # what --extensions names

from ascend_lab.model_explorer.notebook import show  # noqa: E402 - after the ids it uses

__all__ = ["ADAPTER_ID", "EXTENSION", "show"]
