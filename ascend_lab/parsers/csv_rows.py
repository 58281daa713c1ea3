"""CSV rows with named columns, for the profiler's CSV files (pure, linear)."""

import csv
import io
import math
from typing import Dict, List, Optional, Sequence

from ascend_lab.errors.profile import ProfileParseError

# Ascend CSVs end some cells with a tab (so spreadsheets keep long numbers as text).
_STRIP = " \t\r\n\ufeff"


def read_csv_rows(
    text: str, required: Sequence[str], path: Optional[str] = None
) -> List[Dict[str, str]]:
    """Rows of ``text`` as ``{column: cell}``; a missing ``required`` column is an error."""
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
    rows: List[Dict[str, str]] = []
    try:
        for cells in reader:
            if not cells or all(not c.strip(_STRIP) for c in cells):
                continue
            rows.append(
                {
                    c: (cells[i].strip(_STRIP) if i < len(cells) else "")
                    for i, c in enumerate(columns)
                }
            )
    except csv.Error as exc:
        raise ProfileParseError(f"not CSV: {exc}", path, reader.line_num) from None
    return rows


def number(row: Dict[str, str], column: str, path: Optional[str] = None) -> Optional[float]:
    """The cell as a float; empty or ``N/A`` is None, anything else unreadable is an error."""
    cell = row.get(column, "")
    if cell in ("", "N/A", "NA", "-", "None"):
        return None
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # "nan"/"inf" would make the payload invalid JSON
        raise ProfileParseError(f"column {column!r}: {cell[:40]!r} is not a number", path)
    return value
