"""CSV cells a spreadsheet will not run: text from a model or a document may start like a formula.

A cell beginning with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before one) is read
by Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)`` is live). Such a cell is
written with a leading apostrophe, which spreadsheets show as text; ``vera-lab claims`` strips it
again when it reads a claims CSV back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading apostrophe when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Every cell of ``row`` through :func:`safe_cell`."""
    return {k: safe_cell(v) for k, v in row.items()}


def unquoted(value: str) -> str:
    """A cell read back: the apostrophe :func:`safe_cell` added is removed."""
    if value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value
