"""Loading an ODCS contract: its YAML read with positions, checked against the schema, its
statements parsed as a native suite whose every location points back into the contract."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, InvalidInputs, LocatedWarning, Location, did_you_mean
from ..suites.native_suites import parse_suite
from ..suites.suite import SchemaSpec, StatedColumn, Suite
from ..support.text_files import read_utf8
from .contract_servers import duckdb_database
from .contract_statements import Statement, contract_statements, plain_name
from .quality_rules import ContractProblem, Unsupported
from .schema_validation import validate_contract
from .yaml_document import YamlDocument, YamlMap, read_yaml, show_path


def load_contract(path: str | Path, server: str | None = None, with_data: bool = True) -> Suite:
    """The suite a contract states, reading its objects from server ``server`` (default: the first).

    ``with_data=False`` leaves the sources out (``gryph validate`` of a contract without servers).
    """
    file = str(path)
    document = read_yaml(read_utf8(Path(path)), file)
    validate_contract(document)
    contract = document.data
    assert isinstance(contract, dict)  # the schema's root is an object
    chosen = _server(document, server) if with_data else None
    try:
        statements = contract_statements(contract, chosen[1] if chosen else None)
    except ContractProblem as problem:
        raise _unsupported(document, problem.path, str(problem)) from None
    except Unsupported as problem:  # a server's
        raise _unsupported(document, ("servers", chosen[0] if chosen else 0), str(problem)) from None
    for statement in statements:
        if statement.warning:  # the contract runs without the element: said, at its line
            where = document.key_location(statement.path)
            text = f"{show_path(statement.path)}: {statement.warning}"
            warnings.warn(LocatedWarning(InvalidInput("TYPE_NOT_COMPARED", text, location=where)), stacklevel=2)
    text = f"suite {_suite_name(contract, Path(path))}\n" + "\n".join(s.text for s in statements) + "\n"
    lines = [Statement("", ("name",)), *statements]
    try:
        suite = parse_suite(text, file, Path(path).parent)
    except InvalidInputs as errors:
        raise InvalidInputs([_relocated(document, lines, e) for e in errors.errors]) from None
    except InvalidInput as error:
        raise _relocated(document, lines, error) from None
    clauses = tuple(  # a property's path is its name's (or physicalName's) without the key
        dataclasses.replace(
            s.clause,
            location=document.key_location(s.path),
            stated=tuple(StatedColumn(column, show_path(p[:-1]), document.key_location(p)) for column, p in s.stated),
        )
        for s in statements
        if s.clause
    )
    suite = dataclasses.replace(suite, schemas=_with_uncompared(suite.schemas, statements))
    return dataclasses.replace(_pointed_back(suite, document, lines), row_clauses=clauses)


def _with_uncompared(schemas: list[SchemaSpec], statements: list[Statement]) -> list[SchemaSpec]:
    """Each object's schema check, naming the columns whose physicalType is not compared (shown
    beside the check, in reports and JUnit, not only warned of)."""
    by_table: dict[str, list[tuple[str, str]]] = {}
    for statement in statements:
        if statement.uncompared is not None:
            table, column, stated = statement.uncompared
            by_table.setdefault(table, []).append((column, stated))
    return [dataclasses.replace(spec, uncompared=tuple(by_table.get(spec.source, ()))) for spec in schemas]


def contract_database(path: str | Path, server: str | None = None) -> Path | None:
    """The DuckDB file the contract's server ``server`` (default: the first) names, when it is of type duckdb."""
    document = read_yaml(read_utf8(Path(path)), str(path))
    if not isinstance(document.data, dict) or not document.data.get("servers"):
        return None
    chosen = _server(document, server)
    return duckdb_database(chosen[1], Path(path).parent) if chosen else None


def _suite_name(contract: YamlMap, path: Path) -> str:
    return plain_name(str(contract.get("name") or contract.get("id") or path.name.split(".")[0]), prefix="c_")


def _server(document: YamlDocument, name: str | None) -> tuple[int, YamlMap] | None:
    assert isinstance(document.data, dict)
    servers = document.data.get("servers") or []
    if name is None:
        if not servers:
            raise InvalidInput(
                "CONTRACT_UNSUPPORTED",
                "the contract names no server to read its objects from",
                location=document.location(()),
                hint="add one under servers: (type: local, format: parquet, path: data/orders.parquet)",
            )
        return 0, servers[0]
    for index, server in enumerate(servers):
        if server.get("server") == name:
            return index, server
    raise InvalidInput(
        "CONTRACT_UNSUPPORTED",
        f"servers: the contract has no server {name!r}",
        location=document.key_location(("servers",)),
        hint=did_you_mean(name, [s.get("server") for s in servers]),
    )


def _unsupported(document: YamlDocument, path: tuple[str | int, ...], message: str) -> InvalidInput:
    return InvalidInput("CONTRACT_UNSUPPORTED", f"{show_path(path)}: {message}", location=document.key_location(path))


def _relocated(document: YamlDocument, lines: list[Statement], error: InvalidInput) -> InvalidInput:
    """An error in the generated suite, at the contract element whose statement it is in."""
    statement = _statement_at(lines, error.location)
    if statement is None:
        return error
    return type(error)(
        error.code,
        f"{show_path(statement.path)}: {error.message}",
        location=document.key_location(statement.path),
        text=statement.text,
        hint=error.hint,
    )


def _statement_at(lines: list[Statement], location: Location | None) -> Statement | None:
    if location is None or location.line is None or not 1 <= location.line <= len(lines):
        return None
    return lines[location.line - 1]


def _pointed_back(suite: Suite, document: YamlDocument, lines: list[Statement]) -> Suite:
    """The suite with every location in it (statements and the expression nodes inside them) moved to
    the contract element its statement states, so the check pass's errors point into the contract."""

    def moved(value: Any) -> Any:
        if isinstance(value, Location):
            statement = _statement_at(lines, value) if value.file == suite.file else None
            return document.key_location(statement.path) if statement else value
        if isinstance(value, (list, tuple)):
            items = [moved(item) for item in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else type(value)(items)
        if isinstance(value, dict):
            return {key: moved(item) for key, item in value.items()}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changed = {}
            for field in dataclasses.fields(value):
                if field.init:
                    old = getattr(value, field.name)
                    new = moved(old)
                    if new is not old:
                        changed[field.name] = new
            return dataclasses.replace(value, **changed) if changed else value
        return value

    pointed: Suite = moved(suite)
    return pointed
