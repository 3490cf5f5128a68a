"""JSON lines of declared types on DuckDB: each declared field read as text, as Spark's reader
reads a field it is told is a string (a string as itself; a number, boolean, object or list as
its JSON text; null or a missing key as NULL), then cast as the plan casts text
(compiler/sources/typed_text.py, local_backend/sources/typed_text.py): a value that does not
parse is NULL and counted, not a failed read."""

from __future__ import annotations

from gryph.compiler.sources.source_specs import SourceSpec

from ..sql.quoting import ident, string
from .typed_text import ROW_FILE, row_file_argument, typed_from_text


def typed_json(spec: SourceSpec, files: str) -> str:
    """The rows of JSON ``files`` (a list of quoted paths) in ``spec``'s declared types."""
    assert spec.schema is not None, "a source read into declared types"
    fields = "{" + ", ".join(f"{string(c.name)}: 'JSON'" for c in spec.schema.columns) + "}"
    arguments = [files, "format = 'auto'", f"columns = {fields}", *row_file_argument(spec)]
    read = f"read_json({', '.join(arguments)})"
    texts = [f"json_extract_string({ident(c.name)}, '$') AS {ident(c.name)}" for c in spec.schema.columns]
    if spec.row_number is not None:
        texts.append(ident(ROW_FILE))
    return typed_from_text(f"(SELECT {', '.join(texts)} FROM {read})", spec)
