"""The folders the Ascend profiler writes, as MindSpore 2.3-2.10 and torch_npu lay them out.

One run of the profiler on one rank writes ``<host>_<pid>_<timestamp>_ascend_ms/``
(torch_npu: ``..._ascend_pt/``) holding ``PROF_*/`` (the raw device data, msprof's input),
``profiler_info_<rank>.json`` (``profiler_info.json`` without a rank) and, once analysed,
``ASCEND_PROFILER_OUTPUT/`` (``kernel_details.csv``, ``step_trace_time.csv``, ...; since
CANN 8.1 also ``ascend_mindspore_profiler_<rank>.db`` / ``ascend_pytorch_profiler_<rank>.db``).
A multi-rank job leaves one such folder per rank side by side. This module finds them and
says which are analysed; it reads folder names and small JSON files only.
"""

import json
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional

from ascend_lab.parsers.regular_file import read_gated

MINDSPORE_SUFFIX = "_ascend_ms"
TORCH_SUFFIX = "_ascend_pt"
OUTPUT_FOLDER = "ASCEND_PROFILER_OUTPUT"
RAW_PREFIX = "PROF_"
MAX_CHILDREN = 4096  # entries looked at per folder while searching for rank folders
MAX_INFO_BYTES = 1 << 20

_INFO_NAME = re.compile(r"profiler_info_(\d{1,9})\.json")
_RANK_IN_NAME = re.compile(r"rank[_-]?(\d{1,9})")


@dataclass
class ProfilerFolder:
    """One rank's profiler folder: where, which rank and framework, analysed or not."""

    path: str
    rank: Optional[int]
    framework: Optional[str]  # "mindspore", "torch_npu", or None (not told by the name)
    analysed: bool
    raw: List[str] = field(default_factory=list)  # its PROF_* folders

    @property
    def needs_analysis(self) -> bool:
        """Raw ``PROF_*`` data is there but nothing analysed from it."""
        return bool(self.raw) and not self.analysed

    def analyse_command(self) -> str:
        """The command that analyses this folder's raw ``PROF_*`` data in place."""
        parent = os.path.dirname(os.path.abspath(self.path))
        if self.framework == "torch_npu":
            return (
                f'python -c "from torch_npu.profiler.profiler import analyse; analyse({parent!r})"'
            )
        # MindSpore 2.6-2.10: mindspore.profiler.profiler.analyse takes the folder above
        # the *_ascend_ms folders (checked in the r2.6.0 and r2.10.0 API docs); 2.3-2.5
        # have the static Profiler.offline_analyse(path) (not checked here)
        current = (
            f'python -c "from mindspore.profiler.profiler import analyse; analyse({parent!r})"'
        )
        older = f'python -c "from mindspore import Profiler; Profiler.offline_analyse({parent!r})"'
        return f"{current} (MindSpore 2.3-2.5: {older})"


def _listdir(folder: str) -> List[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(names[:MAX_CHILDREN])


def _is_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def rank_of(folder: str) -> Optional[int]:
    """The rank a profiler folder belongs to: ``profiler_info_<rank>.json``, else the
    ``rank_id`` in ``profiler_info.json``, else ``rank_<n>`` in its name, else None."""
    names = _listdir(folder)
    for name in names:
        found = _INFO_NAME.fullmatch(name)
        if found:
            return int(found.group(1))
    if "profiler_info.json" in names:
        try:
            data = read_gated(os.path.join(folder, "profiler_info.json"), MAX_INFO_BYTES)
            info = json.loads(data.decode("utf-8", errors="replace"))
            rank = info.get("rank_id") if isinstance(info, dict) else None
            if isinstance(rank, int) and rank >= 0:
                return rank
        except (OSError, ValueError):
            pass
    found = _RANK_IN_NAME.search(os.path.basename(os.path.normpath(folder)).lower())
    return int(found.group(1)) if found else None


def _framework(folder: str) -> Optional[str]:
    name = os.path.basename(os.path.normpath(folder))
    if name.endswith(MINDSPORE_SUFFIX):
        return "mindspore"
    if name.endswith(TORCH_SUFFIX):
        return "torch_npu"
    return None


def _has_results(output: str) -> bool:
    for name in _listdir(output):
        if name.startswith("kernel_details") and name.endswith(".csv"):
            return True
        if name.startswith("ascend_") and "profiler" in name and name.endswith(".db"):
            return True
    return False


def _msprof_exported(raw: str) -> bool:
    """A ``PROF_*`` folder msprof itself parsed: its ``msprof_<timestamp>.db`` (and, with
    ``--type=text``, ``mindstudio_profiler_output/``) is there."""
    return any(
        (n.startswith("msprof_") and n.endswith(".db")) or n == "mindstudio_profiler_output"
        for n in _listdir(raw)
    )


def describe(folder: str) -> ProfilerFolder:
    """What ``folder`` (one rank's profiler folder) holds."""
    names = _listdir(folder)
    raw = [
        r
        for r in (os.path.join(folder, n) for n in names if n.startswith(RAW_PREFIX))
        if _is_dir(r)
    ]
    output = os.path.join(folder, OUTPUT_FOLDER)
    framework = _framework(folder)
    analysed = _is_dir(output) and _has_results(output)
    if not analysed and framework is None:  # msprof's own collection, parsed by msprof
        analysed = any(_msprof_exported(r) for r in raw)
    return ProfilerFolder(
        path=folder, rank=rank_of(folder), framework=framework, analysed=analysed, raw=raw
    )


def is_profiler_folder(folder: str) -> bool:
    """``folder`` is one rank's profiler folder (by name, or by what it holds)."""
    if _framework(folder) is not None:
        return True
    return any(
        n == OUTPUT_FOLDER or n.startswith(RAW_PREFIX)
        for n in _listdir(folder)
        if _is_dir(os.path.join(folder, n))
    )


def profiler_folders(root: str, depth: int = 2) -> List[ProfilerFolder]:
    """The rank folders at or below ``root`` (at most ``depth`` levels down), by rank.

    ``root`` may be one rank's folder, the profiler's ``output_path`` holding several, or
    a folder above that. Empty when none is found (e.g. the CPU profiler's own layout).
    """
    if is_profiler_folder(root):
        return [describe(root)]
    found: List[ProfilerFolder] = []
    level = [root]
    for _ in range(depth):
        below: List[str] = []
        for folder in level:
            for name in _listdir(folder):
                path = os.path.join(folder, name)
                if not _is_dir(path):
                    continue
                # by name (2.5+, torch_npu), or by content (2.3/2.4: <out>/profiler/)
                if _framework(path) is not None or is_profiler_folder(path):
                    found.append(describe(path))
                else:
                    below.append(path)
        if found:
            break
        level = below
    found.sort(key=lambda f: (f.rank is None, f.rank if f.rank is not None else 0, f.path))
    return found
