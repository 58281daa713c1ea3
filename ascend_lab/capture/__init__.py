"""Capture: the only stage that imports MindSpore.

``compile`` compiles (and runs) a Cell in GRAPH_MODE with IR dumps in a private folder,
``mindir_export`` exports and loads back a ``.mindir``, ``profiler`` runs a Cell under
MindSpore's own profiler, and ``cell_outputs`` records each Cell's inputs and outputs
through PyNative hooks. Each leaves files or records for the parsers and restores
MindSpore's context afterwards. Importing this package imports nothing.
"""
