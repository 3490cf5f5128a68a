"""Names and selections: columns, ``$source``/``${target}`` heads, variables and the steps after them."""

from __future__ import annotations

import json

from ...errors import did_you_mean
from ...language.ruletree.nodes import (
    Expr,
    FieldStep,
    FunctionCall,
    Head,
    IndexStep,
    MethodStep,
    Name,
    Node,
    Star,
    StarStep,
    Step,
)
from ...plan import AggFn, Field, Literal, Scalar
from ...plan.data_types import INTEGER, Kind
from ..selections import Selected, Selector, is_selection_step
from .functions import FunctionResolver
from .scope import Context, Side, unknown_name


class NameResolver(FunctionResolver):
    """Resolves names and selections for a resolver."""

    selector: Selector
    sides_used: set[str]

    def select(self, base: Expr, steps: tuple[Step, ...], node: Node, ctx: Context) -> Scalar:
        """``base`` followed by ``steps`` (none for a bare name, ``*``, call or head)."""
        value: Scalar
        if isinstance(base, Name):
            name = base.name
            side = self.scope.side_of_head(name)
            first = steps[0] if steps else None
            if (
                side is None
                and isinstance(first, FieldStep)
                and name in self.scope.outside
                and not self._is_column(name)
            ):
                visible = ", ".join(sorted(self.scope.sides))
                raise self.scope.error(
                    "SOURCE_NOT_ALLOWED",
                    f"{name!r} cannot appear in this rule",
                    base,
                    f"this rule reads only {visible}",
                )
            if (
                side is not None
                and isinstance(first, (FieldStep, StarStep, MethodStep))
                and not (isinstance(first, FieldStep) and self._is_column(name) and first.name not in side.schema)
            ):
                return self._after_head(side, steps, node, ctx)
            value = self._column(name, base)
        elif isinstance(base, Star):
            if steps and isinstance(steps[0], MethodStep):
                return self._star_method(steps[0], steps[1:], ctx)
            raise self.scope.error("STAR_NOT_ALLOWED", "'*' is only allowed in a select list or count(*)", node)
        elif isinstance(base, FunctionCall):
            value = self.call(base, ctx)
        elif isinstance(base, Head):
            return self._head(base, steps, node, ctx)
        else:
            value = self._expr(base, ctx)
        head = next(
            (
                self.scope.sides[s]
                for s in self.scope.default
                if isinstance(base, Name) and base.name in self.scope.sides[s].schema
            ),
            None,
        )
        return self.apply_steps(value, steps, ctx, head)

    def _head(self, base: Head, steps: tuple[Step, ...], node: Node, ctx: Context) -> Scalar:
        """``$source`` / ``${target}`` (the rule's sides) or ``${SLA}`` (a variable of the rule)."""
        name = base.name
        side = self.scope.side_of_head(name)
        if side is None:
            if name in self.scope.variables:
                return self.apply_steps(self.scope.variables[name], steps, ctx)
            known = sorted(set(self.scope.roles) | set(self.scope.variables))
            raise self.scope.error(
                "UNKNOWN_NAME",
                f"{base.token} is neither the rule's source or target nor a variable",
                base,
                did_you_mean(name, known),
            )
        if not steps:
            raise self.scope.error(
                "HEAD_NEEDS_SELECTION",
                f"{base.token} is a whole data source",
                node,
                f"select from it: {base.token}.column, {base.token}['column'] or {base.token}.json()",
            )
        first = steps[0]
        if isinstance(first, IndexStep):
            column = self._expr(first.index, ctx)
            if not (isinstance(column, Literal) and column.dtype.kind is Kind.STRING):
                raise self.scope.error(
                    "NOT_INDEXABLE",
                    f"{base.token}[...] takes a column name in quotes",
                    first,
                    f"write {base.token}['column']",
                )
            value = self._side_column(side, str(column.value), first)
            return self.apply_steps(value, steps[1:], ctx, side)
        if isinstance(first, (FieldStep, StarStep, MethodStep)):
            return self._after_head(side, steps, node, ctx)
        raise self.scope.error(
            "HEAD_NEEDS_SELECTION",
            f"{base.token} is a whole data source",
            first,
            f"select a column first: {base.token}['column']",
        )

    def _payload(self, side: Side, node: Node) -> str:
        """The column ``$source.json()`` reads: ``value`` (Kafka's), else the only string column."""
        texts = [c.name for c in side.schema.columns if c.dtype.kind is Kind.STRING]
        if "value" in texts:
            return "value"
        if len(texts) == 1:
            return texts[0]
        raise self.scope.error(
            "NO_PAYLOAD",
            f"{side.source} has no column named 'value' and {len(texts)} string columns",
            node,
            "name the column: $source.column.json()",
        )

    def _is_column(self, name: str) -> bool:
        return any(name in self.scope.sides[s].schema for s in self.scope.default)

    def _after_head(self, side: Side, steps: tuple[Step, ...], node: Node, ctx: Context) -> Scalar:
        first = steps[0]
        if isinstance(first, StarStep):
            if len(steps) > 1 and isinstance(steps[1], MethodStep):
                return self._star_method(steps[1], steps[2:], ctx)
            raise self.scope.error("STAR_NOT_ALLOWED", "'source.*' is only allowed in a select list", node)
        if isinstance(first, MethodStep) and first.name.lower() == "json":
            payload = self._side_column(side, self._payload(side, first), first)
            return self.apply_steps(payload, steps, ctx, side)
        if isinstance(first, MethodStep):
            return self._star_method(first, steps[1:], ctx)
        assert isinstance(first, FieldStep)  # the callers pass nothing else
        value = self._side_column(side, first.name, first)
        return self.apply_steps(value, steps[1:], ctx, side)

    def _star_method(self, method: MethodStep, rest: tuple[Step, ...], ctx: Context) -> Scalar:
        if method.name.lower() != "count" or method.args:
            raise self.scope.error(
                "STAR_NOT_ALLOWED", "only count() applies to '*' or a whole source", method, "write count(*)"
            )
        value = self.aggregate_call(AggFn.COUNT_ALL, [], INTEGER, False, method, ctx)
        return self.apply_steps(value, rest, ctx)

    def _column(self, name: str, node: Node) -> Scalar:
        matches = [s for s in self.scope.default if name in self.scope.sides[s].schema]
        if not matches and name in self.scope.variables:
            return self.scope.variables[name]
        if not matches:
            candidates = self.scope.all_column_names() + list(self.scope.aliases)
            if name in self.scope.aliases:
                return self.scope.aliases[name]
            hint = _one_column_hint(name, [self.scope.sides[s] for s in self.scope.default]) or did_you_mean(
                name, candidates
            )
            heads = [h for h in self.scope.sides if h.lower() == name.lower()]
            if heads:
                hint = f"{name!r} is a data source: name a column, e.g. {heads[0]}.column"
            error = self.scope.error("UNKNOWN_COLUMN", f"unknown column {name!r}", node, hint)
            return unknown_name(error, self.scope.unknown)
        if len(matches) > 1:
            raise self.scope.error(
                "AMBIGUOUS_COLUMN",
                f"column {name!r} is in {' and '.join(matches)}",
                node,
                f"qualify it: {matches[0]}.{name} or {matches[1]}.{name}",
            )
        return self._side_column(self.scope.sides[matches[0]], name, node)

    def _side_column(self, side: Side, name: str, node: Node) -> Scalar:
        column = side.schema.get(name)
        if column is None:
            error = self.scope.error(
                "UNKNOWN_COLUMN",
                f"unknown column {name!r} in {side.source}",
                node,
                _one_column_hint(name, [side]) or did_you_mean(name, side.schema.names),
            )
            return unknown_name(error, self.scope.unknown)
        self.sides_used.add(side.source)
        return Field(side.rename(name), column.dtype)

    def apply_steps(self, value: Scalar, steps: tuple[Step, ...], ctx: Context, head: Side | None = None) -> Scalar:
        """Selections and method calls after a value; ``head`` is the side the value comes from."""
        selected = Selected(value)
        for step in steps:
            if is_selection_step(step):
                selected = self.selector.step(selected, step, ctx, head)
            elif isinstance(step, MethodStep):
                receiver = self.selector.finish(selected)
                selected = Selected(self.call(step, ctx, receiver=receiver))
            else:
                raise self.scope.error("STAR_NOT_ALLOWED", "'.*' needs a data source before it", step)
        return self.selector.finish(selected)


# what splits a file's fields when its reader found none (a header read as one column holds them)
_DELIMITERS = (",", ";", "\t", "|")


def _one_column_hint(name: str, sides: list[Side]) -> str | None:
    """When a source was read as one column whose name holds ``name`` between delimiters (a
    header "a,b"), the delimiter to declare: its reader split the file by another."""
    for side in sides:
        if len(side.schema.names) != 1:
            continue
        [column] = side.schema.names
        for delimiter in _DELIMITERS:
            if delimiter in column and name in (part.strip() for part in column.split(delimiter)):
                return (
                    f"{side.source} was read as one column, {column!r}: declare its delimiter, "
                    f"delimiter = {json.dumps(delimiter)}"
                )
    return None
