"""Parsers: what MindSpore, CANN and the profiler write, read into the model.

Text or bytes in, model objects out (``ir_text`` and ``mindir`` -> :class:`Graph`,
``npu_smi`` -> chips and processes, ``profiler_*`` and ``trace_view`` -> kernel launches,
``versions`` -> version strings, ``timeline`` -> a dump folder's pass snapshots). Every
read has a byte cap (``limits``, ``regular_file``), every regex is linear, and nothing here
imports MindSpore, a probe or a view (``.importlinter``: parsers-are-pure).
"""
