"""The accuracy rules of a native suite that state a foreign key, for ``gryph export odcs``: each is
written as an ODCS 3.1 ``relationships`` entry, which the import runs back as a rule of the same misses
(contracts/relationships.py).

A rule states a foreign key when it is the import's rule up to the order of its parts: equalities of a
source column with a target column, ``when`` every target key column is not NULL (so a NULL there matches
nothing, not even ``''``) and, for a composite key, every source key column too (MATCH SIMPLE: a row with a
NULL part is not judged; one NULL column is never a miss anyway), and one blocking check that it misses no
row. Anything else (an expression, a filter, options, another threshold, its metrics or its check read
elsewhere) keeps its text in the ``custom`` rule. Docs: docs/contracts.md ("Export").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..language.ruletree.nodes import Compare, ConditionRule, Expr, FieldStep, IsTest, Logical, Name, Paren, Selection
from ..language.ruletree.statements import CheckDecl, PassDecl, RuleDecl, Statement

# ODCS's shorthand reference is `object.property`, both plain identifiers (the JSON Schema's pattern)
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ForeignKey:
    """One accuracy rule as a foreign key: ``columns`` of ``source`` reference ``referenced`` of
    ``target``; ``lines`` are the suite's lines of the rule and its check."""

    source: str
    columns: tuple[str, ...]
    target: str
    referenced: tuple[str, ...]
    lines: frozenset[int]

    def relationship(self) -> dict[str, object]:
        """The relationship as the source object writes it (one column: on its property)."""
        tos = [f"{self.target}.{column}" for column in self.referenced]
        if len(tos) == 1:
            return {"to": tos[0]}
        return {"from": [f"{self.source}.{column}" for column in self.columns], "to": tos}


def foreign_keys(statements: list[Statement], served: set[str]) -> list[ForeignKey]:
    """The accuracy rules among ``statements`` that state a foreign key between two ``served`` objects."""
    if any(isinstance(s, PassDecl) and s.policy.text.startswith("passed") for s in statements):
        return []  # a count of passed checks would count the schema checks of the key's properties
    found = []
    for rule in statements:
        if not (isinstance(rule, RuleDecl) and rule.kind == "accuracy" and rule.source in served):
            continue
        key = _key(rule, served)
        check = _only_check(rule.name, statements, rule) if key is not None else None
        if key is None or check is None:
            continue
        lines = _lines(rule) | _lines(check)
        if any(s.location.line in lines for s in statements if s not in (rule, check)):
            continue  # another statement on their lines: the custom text keeps them whole
        found.append(ForeignKey(rule.source or "", *key, lines=frozenset(lines)))
    return found


def _key(rule: RuleDecl, served: set[str]) -> tuple[tuple[str, ...], str, tuple[str, ...]] | None:
    """The rule's (source columns, target, target columns) when it states a foreign key, else None."""
    body, source, target = rule.body, rule.source, rule.target
    if rule.details or rule.segment or target is None or target == source or target not in served:
        return None
    if not isinstance(body, ConditionRule) or body.index is not None or body.condition is None:
        return None
    pairs = [_pair(term, source or "", target) for term in _conjuncts(body.rule)]
    tested = [_not_null(term, source or "", target) for term in _conjuncts(body.condition)]
    if None in pairs or None in tested:
        return None
    columns = tuple(pair[0] for pair in pairs if pair)
    referenced = tuple(pair[1] for pair in pairs if pair)
    keys = {(source, c) for c in columns} | {(target, c) for c in referenced}
    needed = {(target, c) for c in referenced} | ({(source, c) for c in columns} if len(columns) > 1 else set())
    plain = all(_PLAIN.match(name) for name in (*columns, *referenced, source or "", target))
    distinct = len(set(columns)) == len(columns) and len(set(referenced)) == len(referenced)
    if not (plain and distinct and needed <= set(tested) <= keys):
        return None
    return columns, target, referenced


def _conjuncts(expr: Expr) -> list[Expr]:
    if isinstance(expr, Paren):
        return _conjuncts(expr.expr)
    if isinstance(expr, Logical) and expr.op == "and":
        return [part for operand in expr.operands for part in _conjuncts(operand)]
    return [expr]


def _pair(term: Expr, source: str, target: str) -> tuple[str, str] | None:
    """``source.a = target.x`` (either way round) as (a, x)."""
    if not (isinstance(term, Compare) and term.op in ("=", "==")):
        return None
    left, right = _column(term.left), _column(term.right)
    if left and right and left[0] == target and right[0] == source:
        left, right = right, left
    if left and right and left[0] == source and right[0] == target:
        return left[1], right[1]
    return None


def _not_null(term: Expr, source: str, target: str) -> tuple[str, str] | None:
    """``object.column is not null`` as (object, column), for either side."""
    if not (isinstance(term, IsTest) and term.what == "null" and term.negated):
        return None
    column = _column(term.operand)
    return column if column and column[0] in (source, target) else None


def _column(expr: Expr) -> tuple[str, str] | None:
    """``object.column`` as (object, column)."""
    if isinstance(expr, Selection) and isinstance(expr.base, Name) and len(expr.steps) == 1:
        step = expr.steps[0]
        if isinstance(step, FieldStep):
            return expr.base.name, step.name
    return None


def _only_check(rule: str, statements: list[Statement], declared: RuleDecl) -> CheckDecl | None:
    """The one blocking check that ``rule`` misses no row, when nothing else reads the rule or the check."""
    said = re.compile(r"""(["'])""" + re.escape(rule) + r"\1")
    readers = [s for s in statements if s is not declared and said.search(s.text)]
    if len(readers) != 1 or not isinstance(readers[0], CheckDecl):
        return None
    check = readers[0]
    text = re.sub(r"\s+", "", check.expr.text).replace("'", '"')
    no_misses = {f'metrics["{rule}"]["miss"]==0', f'0==metrics["{rule}"]["miss"]'}
    no_misses |= {f'metrics["{rule}"]["matchedFraction"]=={one}' for one in ("1", "1.0")}
    if check.warn or check.segment or text not in no_misses:
        return None
    named = re.compile(r"""(["'])""" + re.escape(check.name) + r"\1")
    if any(named.search(s.text) for s in statements if s is not check):
        return None  # `pass when checks(...)` or a notify target names it: the name would change
    return check


def _lines(statement: Statement) -> set[int]:
    first = statement.location.line or 0
    return set(range(first, first + statement.text.count("\n") + 1))
