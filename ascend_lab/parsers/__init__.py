"""Parsers: what MindSpore, CANN and the profiler write, read into the model.

Text or bytes in, model objects out. One subpackage per grammar, each with a face that
re-exports its entry points:

- ``ir/``: the compiler's IR text (``.ir``, ``.dat``, pasted IR, ``analyze_fail``, the
  execution order, and ``timeline``: a dump folder's pass snapshots) -> :class:`Graph`;
- ``mindir/``: ``.mindir`` protobuf files (with the vendored ``mind_ir.proto``) -> :class:`Graph`;
- ``profiler/``: the profiler's CSV, text, SQLite and ``trace_view.json`` files -> kernel launches.

At the top, the one-file readers and what the families share: ``npu_smi`` (chips and
processes), ``versions`` (version files and strings), ``op_dump`` (tensor dumps), ``limits``
and ``regular_file`` (byte caps, regular files only), ``errors``, ``gc_pause``. Every read has
a byte cap, every regex is linear, and nothing here imports MindSpore, a probe or a view
(``.importlinter``: parsers-are-pure). A new reader goes in the family of its grammar (a
sixth profiler file -> ``profiler/``); a new grammar is a new family folder with a face.
"""
