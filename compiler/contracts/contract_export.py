"""A native suite or a Griffin job config written back as an ODCS v3.1.0 contract: each source a
``local`` server can state (one file of the server's format, no options) a schema object, its
``schema`` statements as properties, its accuracy rules that state a foreign key as ``relationships``
(contracts/foreign_keys.py); every other statement, the other sources' among them, one
``custom`` rule with ``engine: gryph`` on the last object (its statements may read every source), as
written.

So ``export -> run`` runs the same statements; a contract given to export is validated and written
back normalised (``import -> export``). docs/contracts.md ("Export") gives the normalisation.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

import yaml

from ..errors import InvalidInput, Location
from ..language.ruletree.convert_suite import parse_suite_tree
from ..plan.data_types import DataType
from ..sources.source_specs import SourceSpec
from ..suites.native_suites import parse_suite
from ..suites.suite import Suite
from ..support.text_files import read_utf8
from .contract_files import is_contract
from .foreign_keys import ForeignKey, foreign_keys
from .schema_validation import validate_contract
from .yaml_document import read_yaml

_FORMATS = ("csv", "parquet", "json", "delta", "iceberg", "avro", "orc")
_SUITE_LINE = re.compile(r"^\s*suite\s+\w+\s*(#.*)?$")


def export_contract(path: str | Path) -> str:
    """The contract of the native suite or contract at ``path``, as YAML text that validates against
    the ODCS schema (a Griffin job config: its suite text, griffin/suite_text.py, to ``suite_contract``)."""
    file = str(path)
    if is_contract(Path(path)):
        document = read_yaml(read_utf8(Path(path)), file)
        validate_contract(document)
        return dump_yaml(document.data)  # the contract's data as read: docs/contracts.md lists what changes
    return suite_contract(read_utf8(Path(path)), file)


def suite_contract(text: str, file: str) -> str:
    """The contract of native suite ``text`` (read from ``file``; its paths are relative to its folder)."""
    suite = parse_suite(text, file)
    served = _served_sources(suite, file)
    exported = [spec for spec in suite.schemas if spec.source in served and not spec.exact]
    tree = parse_suite_tree(text, file)
    keys = foreign_keys(list(tree.statements) if tree else [], set(served))
    left_out = {spec.location.line if spec.location else 0 for spec in served.values()}
    left_out |= {spec.location.line for spec in exported}
    left_out |= {line for key in keys for line in key.lines}
    rest = [
        line
        for number, line in enumerate(text.splitlines(), start=1)
        if number not in left_out and not _SUITE_LINE.match(line) and line.split("#")[0].strip()
    ]
    folder = Path(file).resolve().parent
    template, stems = _server_path([_relative(spec.paths[0], folder) for spec in served.values()])
    objects: list[dict[str, object]] = []
    for (name, _spec), stem in zip(served.items(), stems, strict=True):
        obj: dict[str, object] = {"name": name}
        if stem != name and stem is not None:
            obj["physicalName"] = stem
        properties = [
            _property(column, kind) for spec in exported if spec.source == name for column, kind in spec.columns
        ]
        properties += _key_properties(name, keys, {str(p["name"]) for p in properties})
        if properties:
            obj["properties"] = properties
        related = [key for key in keys if key.source == name]
        for prop in properties:
            prop_keys = [key.relationship() for key in related if key.columns == (prop["name"],)]
            if prop_keys:
                prop["relationships"] = prop_keys
        if any(len(key.columns) > 1 for key in related):
            obj["relationships"] = [key.relationship() for key in related if len(key.columns) > 1]
        objects.append(obj)
    if rest:
        objects[-1]["quality"] = [{"type": "custom", "engine": "gryph", "implementation": "\n".join(rest) + "\n"}]
    server_format = next(iter(served.values())).format
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": suite.name,
        "name": suite.name,
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "local", "type": "local", "format": server_format, "path": template}],
        "schema": objects,
    }
    return dump_yaml(contract)


def dump_yaml(data: object) -> str:
    """``data`` as YAML in the order given, text of several lines as literal blocks."""
    written: str = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    return written


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML ships no types
    """Safe YAML with text of several lines as a literal block, so the suite reads as written."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def _served_sources(suite: Suite, file: str) -> dict[str, SourceSpec]:
    """The sources the contract's one ``local`` server reads: single files without options or a declared
    schema, of the first such source's format (the others stay ``source`` statements in the custom rule)."""
    plain = {
        name: spec
        for name, spec in suite.sources.items()
        if spec.format in _FORMATS and len(spec.paths) == 1 and not spec.options and spec.schema is None
    }
    if not plain:
        raise InvalidInput(
            "CONTRACT_UNSUPPORTED",
            "export needs a source a contract's server can read: one "
            + ", ".join(_FORMATS)
            + " file without options or a declared schema",
            location=Location(file, 1, 1),
            hint='declare the data as one file, e.g. source orders = parquet("data/orders.parquet")',
        )
    first = next(iter(plain.values())).format
    return {name: spec for name, spec in plain.items() if spec.format == first}


def _relative(path: str, folder: Path) -> str:
    """A source's file as the suite's folder sees it (the contract is written beside the suite)."""
    return os.path.relpath(path, folder).replace(os.sep, "/") if os.path.isabs(path) else path


def _server_path(paths: list[str]) -> tuple[str, list[str | None]]:
    """One file: its path. Several: their common folder and extension around ``{object}``, with what
    each object's ``physicalName`` puts there."""
    if len(paths) == 1:
        return paths[0], [None]
    common = posixpath.commonpath([posixpath.dirname(path) for path in paths])
    folder = f"{common}/" if common else ""
    suffixes = {os.path.splitext(path)[1] for path in paths}
    suffix = suffixes.pop() if len(suffixes) == 1 else ""
    stems = [path[len(folder) : len(path) - len(suffix)] for path in paths]
    return f"{folder}{{object}}{suffix}", list(stems)


def _key_properties(name: str, keys: list[ForeignKey], declared: set[str]) -> list[dict[str, object]]:
    """The columns of ``name`` that its foreign keys name and its schema statements do not: properties
    that a relationship may name (the import checks that they exist, as the accuracy rule needed)."""
    named = [c for key in keys if key.source == name for c in key.columns]
    named += [c for key in keys if key.target == name for c in key.referenced]
    return [{"name": column} for column in dict.fromkeys(named) if column not in declared]


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
