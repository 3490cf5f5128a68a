"""Checkers of accuracy rules: the condition forms (``rule [WHEN cond]``, ``IF (cond) rule``) and
the keyed statement form (``@Key a === b; c === d;``)."""

from __future__ import annotations

from ..language.ruletree.nodes import (
    AssignStatement,
    ConditionRule,
    IndexHint,
    InvalidStatement,
    KeyStatement,
    StatementRule,
)
from ..language.ruletree.nodes import Mapping as MappingNode
from ..plan import Call, Field, Fn, Scalar, free_prefix, not_
from ..plan.scalars import field_names
from ..rule_kinds import RuleKind
from .checked_rules import CheckedAccuracy, CheckedKeyedAccuracy
from .equality import griffin_equality
from .resolve import Resolver, Side
from .rule_checker import RuleChecker

_ORDER = {"<<": "<", ">>": ">", "<<=": "<=", ">>=": ">="}


def conjuncts(expr: Scalar) -> list[Scalar]:
    if isinstance(expr, Call) and expr.fn is Fn.AND:
        return conjuncts(expr.args[0]) + conjuncts(expr.args[1])
    return [expr]


class TwoSidedChecker(RuleChecker):
    """What both accuracy forms share: a source and a target, whose columns are renamed."""

    def two_sides(self) -> tuple[str, str, str, Resolver]:
        """What the rule reads as its source and target, the prefix of target columns and a
        resolver over both."""
        source, target = self.rule.source, self.rule.target
        # the columns are named by the source and target either way
        read = self.rule.reads.get(source, source) if source is not None else None
        target_read = self.rule.reads.get(target, target) if target is not None else None
        source_schema, target_schema = self.schema(read), self.schema(target_read)
        assert source is not None and read is not None and target is not None and target_read is not None
        prefix = free_prefix("__target_", source_schema)
        target_key = target if target != source else f"{target} (target)"
        sides = [Side(source, source_schema), Side(target_key, target_schema, lambda n: prefix + n)]
        resolver = Resolver(self.scope_for(sides, {"source": source, "target": target_key}))
        resolver.strings_compare_as_text = True
        return read, target_read, prefix, resolver


class AccuracyChecker(TwoSidedChecker):
    """A miss is a judged source row without a match. The conjuncts of the condition that read
    only the source choose the rows the rule judges; the others join with the rule."""

    kind = RuleKind.ACCURACY
    segmented = True

    def check(self) -> CheckedAccuracy:
        rule = self.rule
        body = self.body_as(ConditionRule)
        source, target, prefix, resolver = self.two_sides()
        terms = [
            griffin_equality(*term.args) if isinstance(term, Call) and term.fn is Fn.EQ else term
            for term in conjuncts(resolver.condition(body.rule))
        ]
        # the condition and segment are read before the rule is judged: their unknown columns are reported with its own
        restrict = conjuncts(resolver.condition(body.condition)) if body.condition is not None else []
        segment = self.segment_field(Resolver(self.source_scope(source)))  # a column of the source
        used = set().union(*(field_names(t) for t in terms))
        source_fields = tuple(Field(c.name, c.dtype) for c in self.schema(source).columns if c.name in used)
        if not source_fields:
            raise self.error(
                "NO_SOURCE_COLUMN",
                f"accuracy rule {rule.name!r} never mentions a column of {source}",
                hint=f"compare {source}.<column> with {target}.<column>",
            )
        if not any(name.startswith(prefix) for name in used):
            raise self.error(
                "NO_TARGET_COLUMN",
                f"accuracy rule {rule.name!r} never mentions a column of {target}",
                hint=f"compare {source}.<column> with {target}.<column>",
            )
        if body.index is not None:
            terms = self.keys_first(terms, body.index, prefix)
        judged = [t for t in restrict if not any(n.startswith(prefix) for n in field_names(t))]
        joined = [t for t in restrict if t not in judged]
        for key in ("retry", "lookback"):  # read by a stream (suites/kept_rows.py): checked here, located
            self.duration(key)
        return CheckedAccuracy(
            rule, source, target, prefix, tuple(terms), tuple(judged), tuple(joined), source_fields, segment
        )

    def keys_first(self, terms: list[Scalar], hint: IndexHint, prefix: str) -> list[Scalar]:
        """The equalities the ``index`` hint names, first: they are the join's keys.

        Each named column must be compared between source and target by an equality of the
        rule; the hint orders the join, it never changes the result.
        """
        keys: list[Scalar] = []
        for name in hint.columns:
            key = next((t for t in terms if t not in keys and field_names(t) == {name, prefix + name}), None)
            if key is None:
                raise self.error(
                    "INDEX_NOT_A_KEY",
                    f"the index hint names {name!r}, which the rule does not compare between source and target",
                    hint,
                    f"add $source.{name} = $target.{name} to the rule, or drop it from the hint",
                )
            keys.append(key)
        return keys + [t for t in terms if t not in keys]


class KeyedAccuracyChecker(TwoSidedChecker):
    """``@Key`` equalities compare as Griffin's ``=`` does (NULL equals NULL and '')."""

    kind = RuleKind.KEYED_ACCURACY  # chosen by the check pass for statement-form accuracy bodies

    def check(self) -> CheckedKeyedAccuracy:
        source, target, prefix, resolver = self.two_sides()
        keys: list[Scalar] = []
        mappings: list[tuple[Scalar, str]] = []
        invalid: list[Scalar] = []
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
        return CheckedKeyedAccuracy(self.rule, source, target, prefix, tuple(keys), tuple(mappings), tuple(invalid))

    def key(self, resolver: Resolver, mapping: MappingNode, prefix: str) -> Scalar:
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
        resolver: Resolver, mapping: MappingNode, left: Scalar | None = None, right: Scalar | None = None
    ) -> Scalar:
        """``===`` and ``!==`` compare as Griffin's ``=`` (NULL equals NULL); ``<<`` etc. as ``<``."""
        if left is None or right is None:
            left, right = resolver.expression(mapping.left), resolver.expression(mapping.right)
        if mapping.op in _ORDER:
            return resolver.compare(_ORDER[mapping.op], left, right, mapping)
        equal = griffin_equality(*resolver.unify(left, right, mapping, mapping.op))
        return equal if mapping.op == "===" else not_(equal)
