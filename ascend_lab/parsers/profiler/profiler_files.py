"""Find MindSpore's profiler files in the folder it wrote, and read them with a size cap.

MindSpore puts its output one or two folders below ``output_path`` (2.7-2.10:
``<out>/<host>_<pid>_<time>_ascend_ms/``; 2.3/2.4: ``<out>/profiler/``), so files are found
by name, walking at most :data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES` entries.
"""

import fnmatch
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.parsers.limits import limit
from ascend_lab.parsers.regular_file import FileRefused, read_gated

MAX_BYTES_ENV = "ASCEND_LAB_PROFILE_MAX_BYTES"
# A long Ascend run's trace_view.json reaches hundreds of MB; more than this is refused.
DEFAULT_MAX_BYTES = 512 << 20
MAX_DEPTH = 6
MAX_ENTRIES = 20000

# What each parser reads, as the profiler names it (first match wins, in this order).
PATTERNS = {
    "cpu_timestamps": "cpu_op_execute_timestamp_*.txt",
    "cpu_op_detail": "cpu_op_detail_info_*.csv",
    "cpu_op_type": "cpu_op_type_info_*.csv",
    "kernel_details": "kernel_details*.csv",
    "op_statistic": "op_statistic*.csv",
    "trace_view": "trace_view*.json",
    "step_trace_time": "step_trace_time*.csv",
    "memory_record": "memory_record*.csv",
    "operator_memory": "operator_memory*.csv",
    "profiler_db": "ascend_*_profiler*.db",
    # torch_npu's db export: the step breakdown (StepTraceTime); msprof's own database
    "analysis_db": "analysis.db",
    "msprof_db": "msprof_*.db",
}


@dataclass
class ProfilerFiles:
    """Paths of the files found under ``root`` (kind -> path), and what was not found."""

    root: str
    paths: Dict[str, str] = field(default_factory=dict)
    truncated: bool = False

    def get(self, kind: str) -> Optional[str]:
        return self.paths.get(kind)

    @property
    def is_ascend(self) -> bool:
        return "kernel_details" in self.paths

    @property
    def is_ascend_db(self) -> bool:
        """Only the SQLite database of an Ascend run (the text files were not exported)."""
        return "profiler_db" in self.paths and "kernel_details" not in self.paths

    @property
    def is_msprof_db(self) -> bool:
        """Only msprof's own database (``msprof_<timestamp>.db``): nothing exported as text
        and no framework database."""
        return "msprof_db" in self.paths and not (
            {"kernel_details", "profiler_db", "cpu_timestamps"} & set(self.paths)
        )

    @property
    def is_cpu(self) -> bool:
        return "cpu_timestamps" in self.paths


def max_bytes() -> int:
    """The read cap (env :data:`MAX_BYTES_ENV`); a bad value is a ValueError naming it."""
    return limit(MAX_BYTES_ENV, DEFAULT_MAX_BYTES)


def read_text(path: str, root: Optional[str] = None) -> str:
    """The text of ``path`` (UTF-8, bad bytes replaced), through the one gate
    (:func:`~ascend_lab.parsers.regular_file.read_gated`): a FIFO, a device or a link out
    of ``root`` (the profiler folder, when given) is refused, and so is a file over the
    cap, before it is read."""
    cap = max_bytes()
    try:
        data = read_gated(path, cap, root)
    except FileRefused as exc:
        if exc.reason == "too large":
            raise ProfileParseError(
                f"the file is over the limit of {cap:,} bytes (set {MAX_BYTES_ENV} to allow more)",
                path,
            ) from None
        raise ProfileParseError(f"cannot read it: {exc.strerror}", path) from None
    except OSError as exc:
        raise ProfileParseError(f"cannot read it: {exc.strerror or exc}", path) from None
    return data.decode("utf-8", errors="replace")


def find_files(root: str) -> ProfilerFiles:
    """Walk ``root`` (bounded) and return the first file of each kind, shallowest first."""
    found = ProfilerFiles(root=root)
    seen = 0
    level: List[str] = [root]
    for _depth in range(MAX_DEPTH + 1):
        nxt: List[str] = []
        for folder in sorted(level):
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if seen > MAX_ENTRIES:
                    found.truncated = True
                    return found
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    nxt.append(entry.path)
                    continue
                try:  # a FIFO, a device or a socket is never a kind; a link is read through
                    if not (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
                        continue  # the gate, which refuses one leading out of the root
                except OSError:
                    continue
                for kind, pattern in PATTERNS.items():
                    if kind not in found.paths and fnmatch.fnmatchcase(entry.name, pattern):
                        found.paths[kind] = entry.path
        level = nxt
        if not level:
            break
    return found
