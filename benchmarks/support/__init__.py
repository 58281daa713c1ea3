"""What the benchmarks and the tests share, so that nothing outside ``tests/`` imports ``tests``.

- ``nets``: the reference nets (a Llama-style ``Decoder``, ``decoder_tokens``) the LLM-scale
  benchmarks trace and some MindSpore tests use; ``densenet_nets``: the page-size DenseNet.
- ``payloads``: payloads built in code (the course graph, a ResNet-like and a big one).
- ``mindir_writer``: writes small ``.mindir`` files byte by byte (no MindSpore needed).
- ``fakes/``: a fake Ascend machine (``npu-smi`` scripts, a CANN tree) and ``fake_machine``:
  that machine as the server's status probe sees it.
- ``browser`` (Debian's chromium through Playwright, the network blocked) and ``lab`` (a
  JupyterLab server on 127.0.0.1, stopped by its PID).
- ``nbrun``: runs the course's notebooks in place.

Tests import these (``from benchmarks.support.browser import chromium``); these import only
the package and each other, never ``tests``. The .po reader both ``scripts/msgfmt.py`` and the
i18n tests use is ``scripts/locale_files.py``.
"""
