"""Trace a Cell through MindSpore's compiler: capture IR dumps, then analyse them.

Importing this package does not import MindSpore; :func:`ascend_lab.trace.api.trace` does.
"""
