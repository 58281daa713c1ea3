"""CSV rows with named columns, for the profiler's CSV files (pure, linear).

Budget (issue #37): rows are handed out one at a time (one row's dict is alive at once, not
a dict per row: a file of short rows grew 64x in memory), at most
:func:`~ascend_lab.parsers.limits.row_cap` of them (a number that grows with the file's
bytes, so what the rows become stays a small multiple of the file), and the readers'
deadline is checked every few thousand rows. Numbers are finite and no larger than
:data:`~ascend_lab.parsers.limits.MAX_MAGNITUDE`, or the file is refused.
"""

import csv
import io
from typing import Any, Dict, Iterator, Optional, Sequence

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.parsers.limits import MAX_MAGNITUDE, ROWS_HINT, bounded_float, row_cap
from ascend_lab.parsers.regular_file import check_deadline

# Ascend CSVs end some cells with a tab (so spreadsheets keep long numbers as text).
_STRIP = " \t\r\n\ufeff"


def read_csv_rows(
    text: str, required: Sequence[str], path: Optional[str] = None
) -> Iterator[Dict[str, str]]:
    """Rows of ``text`` as ``{column: cell}``, one at a time; a missing ``required`` column
        is an error, and so are more rows than :func:`~ascend_lab.parsers.limits.row_cap`
    allows."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise ProfileParseError("the file is empty", path) from None
    except csv.Error as exc:
        raise ProfileParseError(f"not CSV: {exc}", path, 1) from None
    columns = [c.strip(_STRIP) for c in header]
    missing = [c for c in required if c not in columns]
    if missing:
        shown = ", ".join(columns[:12]) + (", ..." if len(columns) > 12 else "")
        raise ProfileParseError(
            f"missing column(s) {', '.join(missing)} (the header has: {shown})", path, 1
        )
    return _rows(reader, columns, path, row_cap(len(text)))


def _rows(
    reader: Any, columns: Sequence[str], path: Optional[str], cap: int
) -> Iterator[Dict[str, str]]:
    count = 0
    try:
        for cells in reader:
            if not cells or all(not c.strip(_STRIP) for c in cells):
                continue
            count += 1
            if count > cap:
                raise ProfileParseError(
                    f"over {cap:,} rows: more (or shorter) rows than a profiler writes in a "
                    f"file of this size; not read further ({ROWS_HINT})",
                    path,
                )
            if not count & 4095:
                check_deadline(path or "")
            yield {
                c: (cells[i].strip(_STRIP) if i < len(cells) else "") for i, c in enumerate(columns)
            }
    except csv.Error as exc:
        raise ProfileParseError(f"not CSV: {exc}", path, reader.line_num) from None


def number(row: Dict[str, str], column: str, path: Optional[str] = None) -> Optional[float]:
    """The cell as a float; empty or ``N/A`` is None, anything else unreadable is an error."""
    cell = row.get(column, "")
    if cell in ("", "N/A", "NA", "-", "None"):
        return None
    value = bounded_float(cell)
    if value is None:  # "nan"/"inf" (or a sum reaching it) would make invalid JSON
        raise ProfileParseError(
            f"column {column!r}: {cell[:40]!r} is not a number of at most {MAX_MAGNITUDE:g}",
            path,
        )
    return value
