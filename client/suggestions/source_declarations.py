"""A source written back as the native suite declares it: ``source users = csv("data/users.csv")``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan.data_types import Kind, Schema
from gryph.compiler.redaction import redact
from gryph.compiler.sources.source_specs import SourceSpec

from .dsl_text import dsl_name, dsl_number, dsl_string

_OPTION_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
# the types a declared schema can name (parse_type_name); nested types are read as the files hold them
DECLARABLE = {Kind.BOOLEAN, Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.STRING, Kind.DATE, Kind.TIMESTAMP}


def declaration(spec: SourceSpec, base: Path) -> list[str]:
    """The lines declaring ``spec`` in a suite kept in ``base``: a comment when its URL held a
    password (never written), then the ``source`` statement; relative paths are from ``base``."""
    notes, arguments = [], []
    if spec.kind.family == "catalog":
        arguments.append(dsl_string(spec.table_name))
    elif spec.kind.family == "database":
        where = _relative(spec.paths[0], base) if spec.kind.paths_are == "files" else spec.paths[0]
        shown = redact(where)
        if shown != where:
            notes.append("# its URL's password is not written here: give it through password_env")
        arguments.append(dsl_string(shown))
    else:
        arguments += [dsl_string(_relative(path, base)) for path in spec.paths]
    arguments += [f"{_option_key(spec, key)} = {_option_value(value)}" for key, value in spec.options]
    if spec.schema is not None:
        arguments.append(f"schema = {dsl_string(_schema_text(spec, spec.schema))}")
    return [*notes, f"source {spec.name} = {spec.format}({', '.join(arguments)})"]


def _relative(path: str, base: Path) -> str:
    """A local path from ``base`` (as the suite reads it); URLs as they are."""
    if "://" in path or not os.path.isabs(path):
        return path
    return Path(os.path.relpath(path, base.resolve())).as_posix()


def _option_key(spec: SourceSpec, key: str) -> str:
    if not _OPTION_KEY.match(key):
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {spec.name}: option {key!r} cannot be written in a suite (letters, digits, _ and . only)",
            text=key,
        )
    return key


def _option_value(value: object) -> str:
    if isinstance(value, tuple):  # several texts: nullValue = ["n/a", "-"]
        return "[" + ", ".join(dsl_string(str(item)) for item in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        number = dsl_number(value)
        if number is not None and not number.startswith("-"):
            return number
    return dsl_string(str(value))


def _schema_text(spec: SourceSpec, schema: Schema) -> str:
    for column in schema.columns:
        if column.dtype.kind not in DECLARABLE:
            raise InvalidInput(
                "BAD_SOURCE",
                f"source {spec.name}: column {column.name!r} is declared {column.dtype}, "
                "which a suite's schema cannot declare",
                text=column.name,
                hint="read the source without a declared schema",
            )
    return ", ".join(f"{dsl_name(c.name)} {str(c.dtype).replace(' ', '')}" for c in schema.columns)
