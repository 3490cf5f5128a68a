"""Keyed accuracy: the older Griffin design's statements, ``@Key a === b; c === d;``.

Each source row is compared with the target rows of the same key (``@Key`` equalities, which
compare as Griffin's ``=`` does: NULL equals NULL and ''). Every source row lands in exactly one
count: ``invalid`` (``@Invalid`` holds, with a target row of its key or, without one, with the
target's columns NULL), else ``miss`` (no target row has its key), else ``matched`` (one target row
of its key satisfies every mapping), else ``mismatch``. Per mapping, ``mismatches`` counts the
mismatched rows for which no target row of the key satisfies that mapping.
"""

from __future__ import annotations

from ..collect import Results
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
    not_,
    or_all,
    free_prefix,
)
from ..plan.scalars import field_names
from ..resolve import Resolver
from ..results import RuleResult
from ..ruletree.nodes import AssignStatement, InvalidStatement, KeyStatement, Mapping, StatementRule
from ..types import BOOLEAN, INTEGER
from .accuracy import AccuracyLowering, griffin_equality
from .common import Finisher, positive

_ORDER = {"<<": "<", ">>": ">", "<<=": "<=", ">>=": ">="}


class KeyedAccuracyLowering(AccuracyLowering):
    kinds = ()  # chosen by ``accuracy_lowering`` for statement-form bodies
    details_allowed = ("total", "matched", "miss", "mismatch", "invalid", "mismatches")

    def lower(self) -> Finisher:
        rule = self.rule
        source_read, target_read, prefix, resolver = self.two_sides()
        keys, mappings, invalid = self.statements(resolver, prefix)

        row = free_prefix("__row", source_read.schema)
        numbered = Window(source_read, (Named(WindowCall(WindowFn.ROW_NUMBER), row),))
        found = prefix + "__found"
        used = set().union(*(field_names(e) for e in keys + [m for m, _ in mappings] + invalid))
        target_rel = Project(
            target_read,
            tuple(
                Named(Field(c.name, c.dtype), prefix + c.name)
                for c in target_read.schema.columns
                if prefix + c.name in used
            )
            + (Named(Literal(True, BOOLEAN), found),),
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
        has_key = judged + [some("found")]
        mismatched = has_key + ([not_(some("all"))] if mappings else [Literal(False, BOOLEAN)])
        counts = {
            "total": count_all(),
            "matched": count_all(and_all(has_key + ([some("all")] if mappings else []))),
            "miss": count_all(and_all(judged + [not_(some("found"))])),
            "mismatch": count_all(and_all(mismatched)),
            "invalid": count_all(some("invalid")) if invalid else Literal(0, INTEGER),
        }
        refs = {key: self.collector.value(per_row, value) for key, value in counts.items()}
        mapping_refs = [
            (text, self.collector.value(per_row, count_all(and_all(mismatched + [not_(some(f"m{i}"))]))))
            for i, (_, text) in enumerate(mappings)
        ]

        source_columns = tuple(Named(Field(c.name, c.dtype), c.name) for c in source_read.schema.columns)
        not_invalid = [not_(Call(Fn.COALESCE, (or_all(invalid), Literal(False, BOOLEAN)), BOOLEAN))] if invalid else []
        misses = Project(Filter(joined, and_all(not_invalid + [IsNull(Field(found, BOOLEAN))])), source_columns)
        sample_ref = self.sample(misses, "missRecords", positive(refs["miss"]))
        names = {key: self.name_of(key) for key in self.details_allowed}

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

    def statements(self, resolver: Resolver, prefix: str):
        """Key equalities, (mapping test, text) pairs and @Invalid conditions, in rule order."""
        keys, mappings, invalid = [], [], []
        for statement in self.body_as(StatementRule).statements:
            if isinstance(statement, AssignStatement):
                resolver.scope.variables[statement.name] = resolver.expression(statement.value)
            elif isinstance(statement, InvalidStatement):
                invalid.append(resolver.condition(statement.condition))
            elif isinstance(statement, KeyStatement):
                keys.append(self.key(resolver, statement.mapping, prefix))
            else:
                mappings.append((self.mapping(resolver, statement.mapping), statement.mapping.text))
        if not keys:
            raise self.error(
                "NO_KEY",
                f"accuracy rule {self.rule.name!r} has no @Key statement",
                hint="add one: @Key ${source}['id'] === ${target}['id'];",
            )
        return keys, mappings, invalid

    def key(self, resolver: Resolver, mapping: Mapping, prefix: str) -> Scalar:
        if mapping.op != "===":
            raise resolver.scope.error("BAD_KEY", f"a key compares with ===, not {mapping.op}", mapping)
        left, right = resolver.expression(mapping.left), resolver.expression(mapping.right)
        sides = [{n.startswith(prefix) for n in field_names(v)} for v in (left, right)]
        if sides == [{True}, {False}]:
            left, right = right, left
        elif sides != [{False}, {True}]:
            raise resolver.scope.error(
                "BAD_KEY",
                "a key compares a selection of the source with one of the target",
                mapping,
                "write: @Key ${source}['id'] === ${target}['id'];",
            )
        return self.mapping(resolver, mapping, left, right)

    @staticmethod
    def mapping(
        resolver: Resolver, mapping: Mapping, left: Scalar | None = None, right: Scalar | None = None
    ) -> Scalar:
        """``===`` and ``!==`` compare as Griffin's ``=`` (NULL equals NULL); ``<<`` etc. as ``<``."""
        if left is None:
            left, right = resolver.expression(mapping.left), resolver.expression(mapping.right)
        if mapping.op in _ORDER:
            return resolver.compare(_ORDER[mapping.op], left, right, mapping)
        equal = griffin_equality(*resolver.unify(left, right, mapping, mapping.op))
        return equal if mapping.op == "===" else not_(equal)
