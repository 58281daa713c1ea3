"""The model: plain data every parser fills and every analysis and view reads.

``graph`` and ``ops`` (one graph model for ``.ir`` dumps and ``.mindir`` files, and what an
op means), ``profile`` (a measured run), ``device_status`` (one snapshot of the machine),
``numeric_records`` / ``tensor_stats`` (what a numeric comparison recorded), ``nx`` (a
Graph as a networkx graph). Model objects show themselves through ``display``: the views
are registered there by the package root, so the model imports none of them.
"""

from ascend_lab.model.graph import BOOKKEEPING_OPS, Graph, Node, TensorType

__all__ = ["BOOKKEEPING_OPS", "Graph", "Node", "TensorType"]
