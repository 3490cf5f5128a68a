"""What every rule checker shares: the rule's details, its sources and scopes, select lists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, TypeVar

from ..errors import ErrorList, InvalidInput, did_you_mean, with_article
from ..language.ruletree.nodes import FieldStep, Name, Node, Selection, SelectItem, Star, located
from ..language.time_literals import duration_ms
from ..plan import Field, Scalar
from ..plan.data_types import Schema
from ..rule_kinds import RULE_KINDS, RuleKind
from ..suites.suite import RuleSpec
from .checked_rules import CheckedRule
from .resolve import Context, Resolver, Scope, Side

Body = TypeVar("Body")

# Details every rule accepts besides its own (Griffin names its sources there).
COMMON_DETAILS = ("source", "target")


class RuleChecker:
    """Checks one rule against the schemas; a subclass per rule kind implements ``check``."""

    kind: ClassVar[RuleKind]  # the kind it checks: its details are the registry's
    segmented: ClassVar[bool] = False  # whether its metrics can be split `by COLUMN`
    # what a `by COLUMN` on a kind that is not split says to do instead
    unsegmented_hint: ClassVar[str] = (
        "completeness, validity, uniqueness, distinctness, timeliness, freshness and accuracy (its condition "
        "form) rules and measures take `by COLUMN`; drop it here"
    )

    def __init__(self, rule: RuleSpec, schemas: Mapping[str, Schema], now_ms: int) -> None:
        self.rule = rule
        self.schemas = schemas
        self.now_ms = now_ms  # the run's time: current_date() and the like are this constant
        self.unknown = ErrorList()  # the columns and functions the rule names that are not there
        self.check_details()
        if rule.segment is not None and not self.segmented:
            raise located(
                "UNSUPPORTED",
                f"{with_article(self.kind)} rule's metrics are not split by segment",
                rule.segment,
                self.unsegmented_hint,
            )

    def segment_field(self, resolver: Resolver) -> Field | None:
        """The column of the rule's `by COLUMN`, resolved in the rule's source (None without one)."""
        segment = self.rule.segment
        if segment is None:
            return None
        if segment.top == 0:
            raise located("BAD_NUMBER", "`top 0` keeps no segment", segment, "write top 1 or more, or leave it out")
        name = Name(segment.column, location=segment.location, text=segment.text)
        field = resolver.expression(name, Context(clause="by"))
        # a name in a one-source scope is that source's column, or unknown: kept with the rule's errors
        return field if isinstance(field, Field) else None

    def check(self) -> CheckedRule:
        raise NotImplementedError

    def checked(self) -> CheckedRule:
        """``check()``, every unknown column and function of the rule reported together, in the
        order they stand. An error after one is left out: it may only follow from it (a time
        that is not a time, a rule that reads no column of its target)."""
        try:
            result: CheckedRule | None = self.check()
        except InvalidInput:
            if not self.unknown.errors:
                raise
            result = None
        self.unknown.errors.sort(key=lambda error: (error.line or 0, error.column or 0))
        self.unknown.raise_any()
        assert result is not None  # else the unknown names were raised
        return result

    def body_as(self, kind: type[Body]) -> Body:
        """The rule's body, which the loaders give every rule of this checker's kinds as a ``kind``."""
        body = self.rule.body
        if not isinstance(body, kind):
            raise TypeError(
                f"{with_article(self.rule.kind)} rule's body is {with_article(kind.__name__)}, not {body!r}"
            )
        return body

    # -- errors and details ---------------------------------------------------------------------
    def error(self, code: str, message: str, node: Node | None = None, hint: str | None = None) -> InvalidInput:
        if node is not None:
            return Scope.error(code, message, node, hint)
        return InvalidInput(code, message, location=self.rule.location, text=None, hint=hint)

    def check_details(self) -> None:
        allowed = set(RULE_KINDS[self.kind].details) | set(COMMON_DETAILS)
        for key in self.rule.details:
            if key not in allowed:
                key_at = self.rule.detail_locations[key][0] if key in self.rule.detail_locations else self.rule.location
                raise InvalidInput(
                    "UNKNOWN_DETAIL",
                    f"{self.rule.kind} rule {self.rule.name!r} has no option {key!r}",
                    location=key_at,
                    text=key,
                    hint=did_you_mean(key, allowed),
                )

    def duration(self, key: str) -> int | None:
        """A duration detail (``3m``, ``500ms``) in milliseconds; None when unset."""
        try:
            return duration_ms(self.rule.details.get(key))
        except ValueError as problem:
            hint = "write it in a larger unit: 30d, 12h" if "1000 years" in str(problem) else None
            raise self.detail_error(key, "BAD_DETAIL", f"{key} {problem}", hint) from None

    def detail_error(self, key: str, code: str, message: str, hint: str | None = None) -> InvalidInput:
        """An error about the value of one detail option, located at that value."""
        value_at = self.rule.detail_locations[key][1] if key in self.rule.detail_locations else self.rule.location
        return InvalidInput(code, message, location=value_at, text=repr(self.rule.details.get(key)), hint=hint)

    # -- sources ------------------------------------------------------------------------------------
    def schema(self, source: str | None) -> Schema:
        if source is None or source not in self.schemas:
            raise InvalidInput(
                "UNKNOWN_SOURCE",
                f"rule {self.rule.name!r} reads unknown source {source!r}",
                location=self.rule.location,
                text=source,
                hint=did_you_mean(source or "", self.schemas),
            )
        return self.schemas[source]

    def scope_for(
        self, sides: list[Side], roles: dict[str, str] | None = None, default: list[str] | None = None
    ) -> Scope:
        roles = roles or {}
        visible = {s.source for s in sides} | set(roles)
        outside = (set(self.schemas) | {"source", "target"}) - visible
        return Scope(
            {s.source: s for s in sides},
            roles,
            default or [s.source for s in sides],
            outside=outside,
            now_ms=self.now_ms,
            unknown=self.unknown,
        )

    def source_scope(self, source: str) -> Scope:
        """Only the rule's source is visible (completeness, timeliness, profiling, ...)."""
        return self.scope_for([Side(source, self.schema(source))], {"source": source})

    # -- select lists --------------------------------------------------------------------------------
    def selections(
        self, items: tuple[SelectItem, ...], resolver: Resolver, ctx: Context | None = None
    ) -> list[tuple[Scalar, str, SelectItem]]:
        """Each item of a select list as (expression, output name, item)."""
        out = []
        for item in items:
            if isinstance(item.expr, Star):
                raise resolver.scope.error("STAR_NOT_ALLOWED", "'*' is not allowed here: name the columns", item)
            expr = resolver.expression(item.expr, ctx or Context(clause=f"{self.rule.kind} rule"))
            out.append((expr, output_name(item, expr), item))
        names = [name for _, name, _ in out]
        for _, name, node in out:
            if names.count(name) > 1:
                raise resolver.scope.error(
                    "DUPLICATE_NAME", f"two selections are named {name!r}", node, "give one an alias with AS"
                )
        return out


def output_name(item: SelectItem, expr: Scalar) -> str:
    """An item's alias, else its column name, else its text."""
    if item.alias:
        return item.alias
    node = item.expr
    if isinstance(expr, Field):
        # a column keeps its own name, without the data source in front (`t`.`a.b` is "a.b")
        if isinstance(node, Name):
            return node.name
        if isinstance(node, Selection) and isinstance(node.steps[-1], FieldStep):
            return node.steps[-1].name
    return node.text
