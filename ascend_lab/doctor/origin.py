"""Did the examined text come from this machine? It decides whether the diagnosis shows
this machine's "Environment" section.

From this machine: the session's last exception (the doctor saw the cell fail here) and a
CANN log under this user's log folder (``~/ascend/log``, or ``$ASCEND_PROCESS_LOG_PATH``).
Anything else (a pasted text or cell, stdin, a log file elsewhere) may come from another
machine: its environment section would describe the wrong machine, so it is shown only when
asked (``--env``).
"""

import os
from typing import List, Mapping, Optional

ENV_LOG_PATH = "ASCEND_PROCESS_LOG_PATH"
DEFAULT_LOG_DIR = os.path.join("~", "ascend", "log")


def log_folders(env: Optional[Mapping[str, str]] = None) -> List[str]:
    """The folders where CANN writes this user's logs (plog, device logs)."""
    env = os.environ if env is None else env
    folders = [os.path.expanduser(DEFAULT_LOG_DIR)]
    custom = env.get(ENV_LOG_PATH, "").strip()
    if custom:
        folders.append(os.path.expanduser(custom))
    return [os.path.realpath(f) for f in folders]


def is_local_log(path: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """True for a file inside one of :func:`log_folders` (symlinks resolved)."""
    real = os.path.realpath(path)
    for folder in log_folders(env):
        if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
            return True
    return False
