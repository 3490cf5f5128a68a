"""A suite's row clauses (a contract's ``required``, patterns, keys) read against the checked
measures and the sources' schemas, for a quarantine to flag the rows failing them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ErrorList, InvalidInput, Location, did_you_mean
from ..plan import Field
from ..plan.data_types import Schema
from ..suites.suite import RowClause, StatedColumn
from .checked_rules import CheckedQuery, CheckedRowClause, CheckedRule


def unknown_stated_columns(
    clauses: Sequence[RowClause], schemas: Mapping[str, Schema], errors: ErrorList
) -> frozenset[StatedColumn]:
    """The properties' columns the clauses derived from them read and the source lacks, each an
    error kept in ``errors`` once, at its property (not once per clause derived from it), in the
    contract's order (a key's parts come in the key's)."""
    unknown = {
        stated: clause.source
        for clause in clauses
        for stated in clause.stated
        if schemas[clause.source].get(stated.column) is None
    }
    for stated, source in sorted(unknown.items(), key=lambda item: _place(item[0].location)):
        errors.add(_unknown(stated.name, source, schemas[source], stated.column, stated.location))
    return frozenset(unknown)


def checked_row_clauses(
    clauses: Sequence[RowClause],
    measures: Sequence[CheckedRule],
    schemas: Mapping[str, Schema],
    errors: ErrorList,
    unknown: frozenset[StatedColumn] = frozenset(),
) -> tuple[CheckedRowClause, ...]:
    """Each clause with its failing rows' condition (its measure's, a measure that passed the
    check pass) or its key columns; each key column the source lacks is an error kept in
    ``errors``, unless it is one of the ``unknown`` columns of its properties (said there)."""
    conditions = {m.spec.name: m.where for m in measures if isinstance(m, CheckedQuery)}
    out = []
    for clause in clauses:
        if clause.measure is not None:
            if clause.measure in conditions:  # else the measure's own error is in ``errors``
                out.append(CheckedRowClause(clause, fails=conditions[clause.measure]))
            continue
        if unknown.intersection(clause.stated):
            continue
        keys = []
        for name in clause.keys:
            with errors.statement():  # one unknown column does not hide the next
                keys.append(_key(clause, schemas[clause.source], name))
        if len(keys) == len(clause.keys):
            out.append(CheckedRowClause(clause, keys=tuple(keys)))
    return tuple(out)


def _place(location: Location | None) -> tuple[int, int]:
    return (location.line or 0, location.column or 0) if location else (0, 0)


def _key(clause: RowClause, schema: Schema, name: str) -> Field:
    column = schema.get(name)
    if column is None:
        raise _unknown(clause.name, clause.source, schema, name, clause.location)
    return Field(column.name, column.dtype)


def _unknown(stated: str, source: str, schema: Schema, name: str, location: Location | None) -> InvalidInput:
    return InvalidInput(
        "UNKNOWN_COLUMN",
        f"{stated}: unknown column {name!r} in {source}",
        location=location,
        text=name,
        hint=did_you_mean(name, schema.names),
    )
