"""Which rows of a source fail its row-level rules, and the split of its rows that follows.

A row fails a completeness rule where a selected value is missing, a validity rule where one of
its conditions does not hold (an error per condition), an accuracy rule where it is
a miss, a uniqueness rule (against the source itself) where its key occurs more than once; a
contract's row clause (``RowClause``) where its counted condition holds or its key, no part NULL,
occurs more than once, and a relationship as its accuracy rule. Each
rule adds one boolean per row through a LEFT join with a set of distinct values (the misses'
values, the duplicated keys), so no row is ever repeated or lost. Those sets may hold as many
rows as the source (every key counted), so the joins are ``shuffled``, never broadcast: the quarantined rows (any
failure, with ``_dq_errors`` naming each) and the valid rows (none) are the source's rows,
exactly, whatever NULLs, NaNs and duplicates it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..analysis.checked_rules import (
    CheckedAccuracy,
    CheckedCompleteness,
    CheckedRowClause,
    CheckedRule,
    CheckedUniqueness,
    CheckedValidity,
)
from ..plan import (
    Call,
    Distinct,
    Export,
    Field,
    Filter,
    Fn,
    IfThen,
    IsNull,
    Join,
    JoinKind,
    Lambda,
    Literal,
    Named,
    Project,
    Read,
    Relation,
    Variable,
    and_all,
    count_all,
    free_prefix,
    grouped_counts,
    not_,
    or_all,
)
from ..plan.data_types import BOOLEAN, INTEGER, STRING, Column, DataType, Schema, array, struct
from ..plan.histograms import COUNT
from ..plan.scalars import Scalar, field_names
from ..sources.lake_tables import catalog_properties, iceberg_identifier
from ..sources.source_specs import SourceSpec
from .accuracy import miss_relation
from .query_collector import Collector, ValueRef

ERRORS, RUN = "_dq_errors", "_dq_run"
ERROR_FIELDS = ("rule", "condition", "message")
ERROR = struct(tuple((name, STRING) for name in ERROR_FIELDS))
RUN_FIELDS = ("suite", "run_id", "data_time", "engine")
DATA_TIME = "data_time"  # the column of a table output (Delta, Iceberg, a database's) its data time's rows are found by
OUTPUTS = ("quarantine", "valid")
BOOKKEEPING = {"quarantine": (ERRORS, RUN), "valid": ()}  # what an output's rows carry after the source's columns


def written_columns(source_columns: Sequence[str], output: str, table: bool) -> tuple[str, ...]:
    """The columns of an output's rows, in order: the source's, then the output's bookkeeping,
    then ``data_time`` in a table (one description for the split's exports and every check of
    a table a run is about to write)."""
    return (*source_columns, *BOOKKEEPING[output], *((DATA_TIME,) if table else ()))


ROW_LEVEL = (CheckedCompleteness, CheckedValidity, CheckedAccuracy, CheckedUniqueness)


@dataclass(frozen=True)
class Split:
    """Where one source's rows go: those failing a row-level rule to the parquet ``quarantine``
    path, the others to ``valid`` (None: not written); ``run`` fills ``_dq_run`` (RUN_FIELDS).
    An output in ``tables`` goes to that table of the engine's database instead (its path None),
    replacing the table's rows of the data time."""

    source: str
    quarantine: str | None
    valid: str | None
    run: tuple[str | None, ...]
    delta: frozenset[str] = frozenset()  # the outputs the engine commits into Delta tables itself
    # the outputs the engine commits into Iceberg tables itself, each described as a source of its kind
    iceberg: tuple[tuple[str, SourceSpec], ...] = ()
    tables: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (output, the table's name parts) in the engine's database


@dataclass(frozen=True)
class SplitCounts:
    """The counts of one split's rows, from the run's own queries."""

    source: str
    quarantined: ValueRef
    valid: ValueRef


def row_level(rules: Iterable[CheckedRule], source: str) -> list[CheckedRule]:
    """The rules whose failures are rows of ``source``."""
    return [
        r
        for r in rules
        if isinstance(r, ROW_LEVEL)
        and r.source == source
        and not (isinstance(r, CheckedUniqueness) and r.target is not None)
    ]


def split_exports(
    rules: Sequence[CheckedRule],
    clauses: Sequence[CheckedRowClause],
    schemas: Mapping[str, Schema],
    split: Split,
    collector: Collector,
) -> SplitCounts:
    """Export the split's two relations and count them in the run's queries."""
    read = Read(split.source, schemas[split.source])
    collector.read_once(split.source)  # the metrics, the flags' joins and both outputs: one read of its files
    mine = [c for c in clauses if c.clause.source == split.source]
    joined, flags = _flagged(read, row_level(rules, split.source), mine, schemas)
    columns = tuple(Named(Field(c.name, c.dtype), c.name) for c in read.schema.columns)
    kept, flags, failing = _flag_bits(joined, columns, flags)
    # the rows with their flag bits, computed once: both outputs and their counts read them
    name = free_prefix(f"__gryph_split_{split.source}", schemas.keys())
    collector.view(name, kept, kept=True, rows_of=split.source)  # LEFT joins with distinct sets: each row once
    flagged = Read(name, kept.schema)
    errors = _errors(flags)
    run = _struct(tuple(zip(RUN_FIELDS, (Literal(v, STRING) for v in split.run), strict=True)))
    bookkeeping = {ERRORS: errors, RUN: run}
    for output, path, failed in (("quarantine", split.quarantine, failing), ("valid", split.valid, not_(failing))):
        if output == "quarantine" or path is not None or output in dict(split.tables):
            kept_columns = (*columns, *(Named(bookkeeping[name], name) for name in BOOKKEEPING[output]))
            collector.export(_export(split, output, Project(Filter(flagged, failed), kept_columns), path))
    return SplitCounts(
        split.source,
        collector.value(flagged, count_all(filter=failing)),
        collector.value(flagged, count_all(filter=not_(failing))),
    )


Flag = tuple[Scalar, tuple[str, str, str]]  # a row's failure of one rule, and its error's fields


def _flag_bits(joined: Relation, columns: tuple[Named, ...], flags: list[Flag]) -> tuple[Relation, list[Flag], Scalar]:
    """The source's columns of ``joined`` with one boolean per flag and one for any, in place of
    the joined sets' columns (key copies, counts, marks): the kept rows are as narrow as they can
    be, and each output filters on one stored bit. The flags and the failure, read from them."""
    prefix = free_prefix("__dq_flag", joined.schema)
    bits = tuple(Named(flag, f"{prefix}{i}") for i, (flag, _) in enumerate(flags))
    failing = Named(or_all([f for f, _ in flags]) if flags else Literal(False, BOOLEAN), f"{prefix}any")
    kept = Project(joined, (*columns, *bits, failing))
    stored: list[Flag] = [(Field(bit.name, BOOLEAN), fields) for bit, (_, fields) in zip(bits, flags, strict=True)]
    return kept, stored, Field(failing.name, BOOLEAN)


def _flagged(
    read: Read, rules: list[CheckedRule], clauses: list[CheckedRowClause], schemas: Mapping[str, Schema]
) -> tuple[Relation, list[Flag]]:
    """The source's rows, joined with what each rule and clause needs to flag them, and the flags:
    the rules' a clause does not name, then the clauses' (a contract's, in its order)."""
    relation: Relation = read
    flags: list[Flag] = []
    claimed = {c.clause.rule for c in clauses}
    by_name = {rule.spec.name: rule for rule in rules}
    for index, rule in enumerate(rules):
        if rule.spec.name not in claimed:
            relation, found = _rule_flags(relation, read, rule, index, schemas)
            flags.extend(found)
    for index, each in enumerate(clauses, len(rules)):
        clause = each.clause
        fields = (clause.name, clause.condition)
        if clause.rule is not None:  # the rule's flags, under the clause's name
            relation, found = _rule_flags(relation, read, by_name[clause.rule], index, schemas)
            flags.extend((flag, (*fields, message)) for flag, (_, _, message) in found)
        elif each.fails is not None:
            flags.append((_false_if_null(each.fails), (*fields, "the contract counts this row against the clause")))
        else:
            present = Filter(read, and_all([not_(IsNull(key)) for key in each.keys]))
            relation, flag = _duplicated(relation, present, each.keys, index)
            flags.append((flag, (*fields, "its key occurs more than once")))
    return relation, flags


def _rule_flags(
    relation: Relation, read: Read, rule: CheckedRule, index: int, schemas: Mapping[str, Schema]
) -> tuple[Relation, list[Flag]]:
    """``relation`` with what one rule needs to flag its rows, and its flags."""
    condition = str(getattr(rule.spec.body, "text", "") or rule.spec.kind)
    if isinstance(rule, CheckedValidity):  # one error per condition the row fails
        return relation, [
            (fails, (rule.spec.name, name, "the condition does not hold")) for name, fails in rule.failures().items()
        ]
    flag: Scalar
    if isinstance(rule, CheckedCompleteness):
        flag = _false_if_null(rule.incomplete)
        message = "a selected value is missing"
    elif isinstance(rule, CheckedAccuracy):
        misses = miss_relation(rule, read, Read(rule.target, schemas[rule.target]), shuffled=True)
        relation, flag = _marked(relation, misses, _source_columns(rule, read))
        message = f"no row of {rule.target!r} matches"
    else:
        assert isinstance(rule, CheckedUniqueness)  # row_level keeps these four kinds
        relation, flag = _duplicated(relation, read, rule.keys, index)
        message = "its key occurs more than once"
    return relation, [(flag, (rule.spec.name, condition, message))]


def _false_if_null(flag: Scalar) -> Scalar:
    return Call(Fn.COALESCE, (flag, Literal(False, BOOLEAN)), BOOLEAN)


def _source_columns(rule: CheckedAccuracy, read: Read) -> tuple[Column, ...]:
    """The source columns an accuracy rule reads: a row's miss depends on these alone."""
    names = {f.name for f in rule.source_fields}.union(*(field_names(term) for term in rule.judged))
    return tuple(c for c in read.schema.columns if c.name in names)


def _marked(relation: Relation, misses: Relation, used: tuple[Column, ...]) -> tuple[Relation, Scalar]:
    """``relation`` with a mark on the rows whose ``used`` values are those of a miss: equal rows
    miss alike."""
    prefix = free_prefix("__dq_miss", relation.schema)
    mark = Named(Literal(True, BOOLEAN), f"{prefix}mark")
    values = Distinct(
        Project(misses, (*(Named(Field(c.name, c.dtype), f"{prefix}{i}") for i, c in enumerate(used)), mark))
    )
    on = and_all(
        [
            Call(Fn.EQ_NULL_SAFE, (Field(c.name, c.dtype), Field(f"{prefix}{i}", c.dtype)), BOOLEAN)
            for i, c in enumerate(used)
        ]
    )
    return Join(JoinKind.LEFT, relation, values, on, shuffled=True), not_(IsNull(Field(mark.name, BOOLEAN)))


def _duplicated(
    relation: Relation, counted_in: Relation, key_values: Sequence[Scalar], index: int
) -> tuple[Relation, Scalar]:
    """``relation`` with how many rows of ``counted_in`` (the source's, or those of them a key
    counts in) hold each row's key, and the flag of a row whose key more than one holds."""
    prefix = free_prefix(f"__dq_key{index}_", relation.schema)
    keys = tuple(Named(expr, f"{prefix}{i}") for i, expr in enumerate(key_values))
    counted = grouped_counts(counted_in, keys)
    count = Named(Field(COUNT, INTEGER), f"{prefix}count")
    counts = Project(counted, (*(Named(Field(k.name, k.expr.dtype), k.name) for k in keys), count))
    on = and_all(
        [Call(Fn.EQ_NULL_SAFE, (k.expr, Field(k.name, k.expr.dtype)), BOOLEAN) for k in keys]  # keys read the source
    )
    more_than_once = Call(Fn.GT, (Field(count.name, INTEGER), Literal(1, INTEGER)), BOOLEAN)
    return Join(JoinKind.LEFT, relation, counts, on, shuffled=True), _false_if_null(more_than_once)


def _errors(flags: list[Flag]) -> Scalar:
    """The list of the errors a row has, in the rules' order (empty for a valid row)."""
    if not flags:
        return Literal(None, array(ERROR))
    each = tuple(
        IfThen(
            ((flag, _struct(tuple(zip(ERROR_FIELDS, map(_text, fields), strict=True)))),), Literal(None, ERROR), ERROR
        )
        for flag, fields in flags
    )
    present = Lambda("__dq_e", not_(IsNull(Variable("__dq_e", ERROR))), BOOLEAN)
    return Call(Fn.ARRAY_FILTER, (Call(Fn.MAKE_ARRAY, each, array(ERROR)), present), array(ERROR))


def _text(value: str) -> Literal:
    return Literal(value, STRING)


def _struct(fields: tuple[tuple[str, Scalar], ...]) -> Scalar:
    dtype: DataType = struct(tuple((name, value.dtype) for name, value in fields))
    return Call(Fn.MAKE_STRUCT, tuple(part for name, value in fields for part in (_text(name), value)), dtype)


def _export(split: Split, output: str, relation: Relation, path: str | None) -> Export:
    """One output's export: a parquet folder, a Delta table's folder, an Iceberg catalog's table or a
    table of the engine's database (all but the folder with their data time's rows replaced)."""
    name, data_time = f"{split.source}__{output}", (DATA_TIME, split.run[2] or "none")
    in_database, lake = dict(split.tables).get(output), dict(split.iceberg).get(output)
    if in_database is not None:
        return Export(name, relation, table=in_database, replace=data_time)
    if lake is not None:
        catalog = tuple(sorted(catalog_properties(lake).items()))
        return Export(name, relation, table=iceberg_identifier(lake), replace=data_time, catalog=catalog)
    return Export(name, relation, path, replace=data_time if output in split.delta else None)
