"""The section of a run's values that did not parse as their sources' declared types."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from ...results.document import MalformedColumn
from ..text import malformed_examples


def malformed_section(malformed_values: Mapping[str, Mapping[str, MalformedColumn]]) -> str:
    """Per source read into declared types, each column with values that are not of its type
    (read as NULL): how many, and the first of them with their row numbers."""
    if not malformed_values:
        return ""
    rows = [
        f"<tr><td>{escape(str(source))}</td><td>{escape(str(name))}</td><td>{escape(column.type)}</td>"
        f'<td class="num">{column.malformed}</td><td>{escape(malformed_examples(column))}</td></tr>'
        for source, columns in malformed_values.items()
        for name, column in columns.items()
    ]
    return (
        '<section id="malformed"><h2>Values not of their declared type</h2><p class="muted">read as NULL</p>'
        "<table><tr><th>source</th><th>column</th><th>type</th><th>malformed</th><th>first rows</th></tr>"
        f"{''.join(rows)}</table></section>"
    )
