"""Keyed accuracy: the older Griffin design's statements, ``@Key a === b; c === d;``.

Each source row is compared with the target rows of the same key (``@Key`` equalities, which
compare as Griffin's ``=`` does: NULL equals NULL and ''). Every source row lands in exactly one
count: ``invalid`` (``@Invalid`` holds, with a target row of its key or, without one, with the
target's columns NULL), else ``miss`` (no target row has its key), else ``matched`` (one target row
of its key satisfies every mapping), else ``mismatch``. Per mapping, ``mismatches`` counts the
mismatched rows for which no target row of the key satisfies that mapping.
"""

from __future__ import annotations

from ..analysis.checked_rules import CheckedKeyedAccuracy
from ..plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Literal,
    Named,
    Project,
    Scalar,
    Window,
    WindowCall,
    WindowFn,
    and_all,
    count_all,
    free_prefix,
    not_,
    or_all,
)
from ..plan.data_types import BOOLEAN, INTEGER
from ..plan.scalars import field_names
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive
from .query_collector import Results


class KeyedAccuracyLowering(RuleLowering[CheckedKeyedAccuracy]):
    kinds = (RuleKind.KEYED_ACCURACY,)

    def lower(self) -> Finisher:
        rule, checked = self.rule, self.checked
        source_read, target_read, prefix = self.read(checked.source), self.read(checked.target), checked.prefix
        keys, mappings, invalid = list(checked.keys), list(checked.mappings), list(checked.invalid)

        row = free_prefix("__row", source_read.schema)
        numbered = Window(source_read, (Named(WindowCall(WindowFn.ROW_NUMBER), row),))
        found = prefix + "__found"
        used = set().union(*(field_names(e) for e in keys + [m for m, _ in mappings] + invalid))
        target_rel = Project(
            target_read,
            (
                *tuple(
                    Named(Field(c.name, c.dtype), prefix + c.name)
                    for c in target_read.schema.columns
                    if prefix + c.name in used
                ),
                Named(Literal(True, BOOLEAN), found),
            ),
        )
        joined = Join(JoinKind.LEFT, numbered, target_rel, and_all(keys))

        # one row per source row: how many target rows of its key exist, mark it invalid, match ...
        measures = [Named(AggregateCall(AggFn.COUNT, (Field(found, BOOLEAN),), INTEGER), "found")]
        if invalid:
            measures.append(Named(count_all(or_all(invalid)), "invalid"))
        if mappings:
            measures.append(Named(count_all(and_all([m for m, _ in mappings])), "all"))
            measures += [Named(count_all(m), f"m{i}") for i, (m, _) in enumerate(mappings)]
        per_row = Aggregate(joined, (Named(Field(row, INTEGER), row),), tuple(measures))

        def some(name: str) -> Scalar:
            return Call(Fn.GT, (Field(name, INTEGER), Literal(0, INTEGER)), BOOLEAN)

        judged = [not_(some("invalid"))] if invalid else []
        has_key = [*judged, some("found")]
        mismatched = has_key + ([not_(some("all"))] if mappings else [Literal(False, BOOLEAN)])
        counts = {
            "total": count_all(),
            "matched": count_all(and_all(has_key + ([some("all")] if mappings else []))),
            "miss": count_all(and_all([*judged, not_(some("found"))])),
            "mismatch": count_all(and_all(mismatched)),
            "invalid": count_all(some("invalid")) if invalid else Literal(0, INTEGER),
        }
        refs = {key: self.collector.value(per_row, value) for key, value in counts.items()}
        mapping_refs = [
            (text, self.collector.value(per_row, count_all(and_all([*mismatched, not_(some(f"m{i}"))]))))
            for i, (_, text) in enumerate(mappings)
        ]

        source_columns = tuple(Named(Field(c.name, c.dtype), c.name) for c in source_read.schema.columns)
        not_invalid = [not_(Call(Fn.COALESCE, (or_all(invalid), Literal(False, BOOLEAN)), BOOLEAN))] if invalid else []
        misses = Project(Filter(joined, and_all([*not_invalid, IsNull(Field(found, BOOLEAN))])), source_columns)
        sample_ref = self.sample(misses, "missRecords", positive(refs["miss"]))
        names = self.metric_names()

        def finish(results: Results) -> RuleResult:
            metrics = {names[key]: results.value(ref) or 0 for key, ref in refs.items()}
            metrics[names["mismatches"]] = {text: results.value(ref) or 0 for text, ref in mapping_refs}
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([metrics])],
                [self.record(results, "missRecords", metrics[names["miss"]], sample_ref)],
            )

        return finish
