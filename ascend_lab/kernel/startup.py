"""IPython extension the MindSpore kernel loads at start.

It gives AKG's compiled kernels one folder for the process
(:func:`ascend_lab.capture.compile.share_kernel_cache`), loads ``ascend_lab`` (the magics; no
MindSpore import) and, if the launcher could not
source ``set_env.sh``, shows that warning once, in the output of the first cell run, where
the learner sees it (output printed while the kernel starts goes to the server log only).
"""

import os
import sys
from typing import Any, Optional

from ascend_lab.capture.compile import share_kernel_cache
from ascend_lab.kernel.launcher import ENV_SET_ENV_ERROR


def warning_text() -> Optional[str]:
    """The set_env.sh warning for this kernel, or None."""
    error = os.environ.get(ENV_SET_ENV_ERROR)
    if not error:
        return None
    return (
        f"ascend-lab: WARNING: {error}\n"
        "The kernel started without the full CANN environment, so Ascend devices may not work. "
        "Check the path with `ascend-lab kernels`, fix set_env.sh or reinstall the kernel with "
        "`ascend-lab install-kernel --set-env PATH`, then restart the kernel.\n"
    )


def load_ipython_extension(ipython: Any) -> None:
    # before the learner's first fusion compile: its kernels and a trace's share one cache
    share_kernel_cache()
    ipython.extension_manager.load_extension("ascend_lab")
    text = warning_text()
    if text is None:
        return

    def _warn_once(*_args: Any) -> None:
        ipython.events.unregister("pre_run_cell", _warn_once)
        sys.stderr.write(text)
        sys.stderr.flush()

    ipython.events.register("pre_run_cell", _warn_once)
