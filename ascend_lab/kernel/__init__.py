"""The "MindSpore" Jupyter kernel: a kernelspec whose launcher sources CANN's ``set_env.sh``.

- :mod:`.setenv` finds ``set_env.sh`` under the Ascend install root and sources it safely.
- :mod:`.spec` writes, lists and removes the kernelspec (``kernel.json`` + logos).
- :mod:`.launcher` is what the kernelspec runs: environment first, then ipykernel.
- :mod:`.startup` is the IPython extension the kernel loads (magics, set_env warning).
- ``cli_install`` / ``cli_uninstall`` / ``cli_list``: the ``ascend-lab`` subcommands.
"""
