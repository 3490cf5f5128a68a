"""A native suite written back as an ODCS v3.1.0 contract: its file source as the server, its
``schema`` statements as properties, every other statement a ``custom`` rule with ``engine: gryph``.

So ``export -> run`` runs the same statements; the contract names them ``schema[0].quality[0]``'s
implementation. docs/contracts.md ("Export") gives the normalisation.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..errors import InvalidInput, Location
from ..plan.data_types import DataType
from ..sources.source_specs import SourceSpec
from ..suites.native_suites import parse_suite
from ..suites.suite import Suite
from ..support.text_files import read_utf8

_FORMATS = ("csv", "parquet", "json", "delta", "iceberg")
_SUITE_LINE = re.compile(r"^\s*suite\s+\w+\s*(#.*)?$")


def export_contract(path: str | Path) -> str:
    """The contract of the native suite at ``path``, as YAML text that validates against the ODCS schema."""
    file = str(path)
    text = read_utf8(Path(path))
    suite = parse_suite(text, file)
    name, source = _one_file_source(suite, file)
    exported = [spec for spec in suite.schemas if spec.source == name and not spec.exact]
    left_out = {source.location.line if source.location else 0} | {spec.location.line for spec in exported}
    rest = [
        line
        for number, line in enumerate(text.splitlines(), start=1)
        if number not in left_out and not _SUITE_LINE.match(line) and line.split("#")[0].strip()
    ]
    obj: dict[str, object] = {"name": name}
    properties = [_property(column, kind) for spec in exported for column, kind in spec.columns]
    if properties:
        obj["properties"] = properties
    if rest:
        obj["quality"] = [{"type": "custom", "engine": "gryph", "implementation": "\n".join(rest) + "\n"}]
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": suite.name,
        "name": suite.name,
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "local", "type": "local", "format": source.format, "path": source.paths[0]}],
        "schema": [obj],
    }
    written: str = yaml.dump(contract, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    return written


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML ships no types
    """Safe YAML with text of several lines as a literal block, so the suite reads as written."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def _one_file_source(suite: Suite, file: str) -> tuple[str, SourceSpec]:
    """The suite's one source, a single file of a format a contract's local server reads as it is."""
    sources = list(suite.sources.items())
    if len(sources) != 1:
        raise _refused(file, f"export writes a suite of one source (this one has {len(sources)})")
    name, spec = sources[0]
    if spec.format not in _FORMATS or len(spec.paths) != 1 or spec.options or spec.schema is not None:
        raise _refused(
            file,
            f"source {name}: export writes one {', '.join(_FORMATS)} file without options or a declared schema",
            spec.location,
        )
    return name, spec


def _property(column: str, kind: DataType | None) -> dict[str, object]:
    """A column of a schema statement as an ODCS property (its type as the nearest logicalType)."""
    prop: dict[str, object] = {"name": column}
    logical = _LOGICAL.get(str(kind).lower()) if kind is not None else None
    if logical is not None:
        prop["logicalType"] = logical
    return prop


# a schema statement's type -> logicalType; the importer maps each back (number: the column only)
_LOGICAL = {"bigint": "integer", "int": "integer", "integer": "integer", "string": "string",
            "double": "number", "boolean": "boolean", "date": "date", "timestamp": "timestamp"}  # fmt: skip


def _refused(file: str, message: str, location: Location | None = None) -> InvalidInput:
    return InvalidInput("CONTRACT_UNSUPPORTED", message, location=location or Location(file, 1, 1))
