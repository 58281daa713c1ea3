"""The profiler family: what ``mindspore.Profiler`` writes into its output folder.

- ``profiler_files``: which files a profiler folder holds (:class:`ProfilerFiles`), and the
  byte cap;
- ``profiler_ascend_files``: the Ascend CSVs (``kernel_details``, ``op_statistic``,
  ``step_trace_time``, ``memory_record``, ``operator_memory``);
- ``profiler_cpu_files``: the CPU text files (``*_execute_timestamp``, ``*_op_detail``);
- ``profiler_db`` and ``profiler_db_steps``: the ``ascend_*_profiler*.db`` SQLite database;
- ``trace_view``: ``trace_view.json`` (Chrome trace format);
- ``csv_rows``: CSV rows with named columns, one at a time, bounded (shared by the above).

The face below re-exports the entry points, loaded on first use.
"""

from ascend_lab.parsers.faces import lazy_exports

__all__ = [
    "ProfilerFiles",
    "find_files",
    "parse_execute_timestamps",
    "parse_kernel_details",
    "parse_trace_view",
    "read_profiler_db",
    "read_step_trace_table",
]

_LAZY = {
    "ProfilerFiles": "ascend_lab.parsers.profiler.profiler_files",
    "find_files": "ascend_lab.parsers.profiler.profiler_files",
    "parse_kernel_details": "ascend_lab.parsers.profiler.profiler_ascend_files",
    "parse_execute_timestamps": "ascend_lab.parsers.profiler.profiler_cpu_files",
    "read_profiler_db": "ascend_lab.parsers.profiler.profiler_db",
    "read_step_trace_table": "ascend_lab.parsers.profiler.profiler_db_steps",
    "parse_trace_view": "ascend_lab.parsers.profiler.trace_view",
}


__getattr__ = lazy_exports(__name__, _LAZY)
