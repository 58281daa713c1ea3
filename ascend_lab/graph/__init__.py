"""The graph model every parser fills and every analysis and view reads."""

from .model import BOOKKEEPING_OPS, Graph, Node, TensorType

__all__ = ["BOOKKEEPING_OPS", "Graph", "Node", "TensorType"]
