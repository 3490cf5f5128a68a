"""A suite's row clauses (a contract's ``required``, patterns, keys) read against the checked
measures and the sources' schemas, for a quarantine to flag the rows failing them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ErrorList, InvalidInput, Location, did_you_mean
from ..plan import Field
from ..plan.data_types import Schema
from ..suites.suite import RowClause
from .checked_rules import CheckedQuery, CheckedRowClause, CheckedRule


def checked_row_clauses(
    clauses: Sequence[RowClause], measures: Sequence[CheckedRule], schemas: Mapping[str, Schema], errors: ErrorList
) -> tuple[CheckedRowClause, ...]:
    """Each clause with its failing rows' condition (its measure's, a measure that passed the
    check pass) or its key columns; each key column the source lacks is an error kept in ``errors``."""
    conditions = {m.spec.name: m.where for m in measures if isinstance(m, CheckedQuery)}
    out = []
    for clause in clauses:
        if clause.measure is not None:
            if clause.measure in conditions:  # else the measure's own error is in ``errors``
                out.append(CheckedRowClause(clause, fails=conditions[clause.measure]))
            continue
        keys = []
        stated = clause.key_locations or (clause.location,) * len(clause.keys)
        for name, location in zip(clause.keys, stated, strict=True):
            with errors.statement():  # one unknown column does not hide the next
                keys.append(_key(clause, schemas[clause.source], name, location))
        if len(keys) == len(clause.keys):
            out.append(CheckedRowClause(clause, keys=tuple(keys)))
    return tuple(out)


def _key(clause: RowClause, schema: Schema, name: str, location: Location | None) -> Field:
    column = schema.get(name)
    if column is None:
        raise InvalidInput(
            "UNKNOWN_COLUMN",
            f"{clause.name}: unknown column {name!r} in {clause.source}",
            location=location,
            text=name,
            hint=did_you_mean(name, schema.names),
        )
    return Field(column.name, column.dtype)
