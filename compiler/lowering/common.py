"""What every lowering shares: the rule's scope, its details, and the hand-off to finishing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TypeVar

from ..collect import Collector, Results, RowsRef, ValueRef
from ..errors import InvalidInput, did_you_mean
from ..parser import unquote_name
from ..plan import Export, Field, Limit, Named, Project, Read, Relation, Scalar
from ..resolve import Context, Resolver, Scope, Side
from ..results import MetricWrite, RecordOutput, RuleResult
from ..ruletree.nodes import Node, SelectItem, Star
from ..suite import RuleSpec
from ..types import Schema

Finisher = Callable[[Results], RuleResult]
Body = TypeVar("Body")

# Details every rule accepts besides its own (Griffin names its sources there).
COMMON_DETAILS = ("source", "target")


@dataclass
class Options:
    """Knobs of one compilation."""

    record_sample: int = 20  # rows of each record output brought back (0: none)
    now_ms: int = 0  # the run's time, for timeliness rules without an end column
    # where full record outputs are written on the engine's side: a folder, or "table:PREFIX"
    records_to: str | None = None
    count_rows: bool = False  # count the rows of every source read (the run's task metrics)

    def export_for(self, name: str, relation: Relation) -> Export | None:
        """The export of one record output, or None when records are not written."""
        target = self._target(name)
        return None if target is None else Export(name, relation, *target)

    def destination(self, name: str) -> str | None:
        """Where the export of ``name`` writes, as the result document shows it."""
        target = self._target(name)
        if target is None:
            return None
        path, table = target
        return path if path is not None else f"table {table}"

    def _target(self, name: str) -> tuple[str | None, str | None] | None:
        if not self.records_to:
            return None
        if self.records_to.startswith("table:"):
            return None, self.records_to[len("table:") :] + name
        return f"{self.records_to.rstrip('/')}/{name}.parquet", None


class RuleLowering:
    """Helpers for lowering one rule; a subclass per DQ type implements ``lower``."""

    kinds: tuple[str, ...] = ()
    details_allowed: tuple[str, ...] = ()

    def __init__(self, rule: RuleSpec, schemas: dict[str, Schema], collector: Collector, options: Options) -> None:
        self.rule = rule
        self.schemas = schemas
        self.collector = collector
        self.options = options
        self.check_details()

    def body_as(self, kind: type[Body]) -> Body:
        """The rule's body, which the loaders give every rule of this lowering's kinds as a ``kind``."""
        body = self.rule.body
        if not isinstance(body, kind):
            raise TypeError(f"a {self.rule.kind} rule's body is a {kind.__name__}, not {body!r}")
        return body

    # -- errors and details ---------------------------------------------------------------------
    def error(self, code: str, message: str, node: Node | None = None, hint: str | None = None) -> InvalidInput:
        if node is not None:
            return Scope.error(code, message, node, hint)
        return InvalidInput(code, message, location=self.rule.location, text=None, hint=hint)

    def check_details(self) -> None:
        allowed = set(self.details_allowed) | set(COMMON_DETAILS)
        for key in self.rule.details:
            if key not in allowed:
                key_at = self.rule.detail_locations.get(key, (self.rule.location,))[0]
                raise InvalidInput(
                    "UNKNOWN_DETAIL",
                    f"{self.rule.kind} rule {self.rule.name!r} has no option {key!r}",
                    location=key_at,
                    text=key,
                    hint=did_you_mean(key, allowed),
                )

    def detail_error(self, key: str, code: str, message: str, hint: str | None = None) -> InvalidInput:
        """An error about the value of one detail option, located at that value."""
        value_at = self.rule.detail_locations.get(key, (None, self.rule.location))[1]
        return InvalidInput(code, message, location=value_at, text=repr(self.rule.details.get(key)), hint=hint)

    def name_of(self, key: str) -> str:
        """A metric's name: renamed in the details, else the key itself (Griffin's getStringOrKey)."""
        value = self.rule.details.get(key)
        return str(value) if value not in (None, "") else key

    def write(self, rows: list[dict]) -> MetricWrite:
        """The rule's main metric write, named and flattened as its ``out`` entry says."""
        metric = self.rule.metric
        return MetricWrite(
            metric.name if metric and metric.name else self.rule.name, rows, metric.flatten if metric else "default"
        )

    def sample(self, relation: Relation, default_name: str, any_records: Callable[[Results], bool]) -> RowsRef | None:
        """A bounded sample of a record output's rows (written in full when asked to).

        The sample is fetched only when ``any_records`` says the output is not empty: clean
        data costs no sample query.
        """
        export = self.options.export_for(f"{self.rule.name}__{self.record_name(default_name)}", relation)
        if export is not None:
            self.collector.export(export)
        if not self.options.record_sample:
            return None
        return self.collector.rows(Limit(relation, self.options.record_sample), needed=any_records)

    def record_name(self, default_name: str) -> str:
        """A record output's name: the rule's ``out`` entry, else Griffin's default."""
        return self.rule.record_name or default_name

    def record(self, results: Results, default_name: str, count: int | None, sample: RowsRef | None) -> RecordOutput:
        """A record output: its name, count, sample and where it was written in full."""
        name = self.record_name(default_name)
        return RecordOutput(
            name,
            count,
            results.rows(sample) if sample is not None else [],
            self.options.destination(f"{self.rule.name}__{name}"),
        )

    # -- sources ------------------------------------------------------------------------------------
    def schema(self, source: str) -> Schema:
        if source not in self.schemas:
            raise InvalidInput(
                "UNKNOWN_SOURCE",
                f"rule {self.rule.name!r} reads unknown source {source!r}",
                location=self.rule.location,
                text=source,
                hint=did_you_mean(source, self.schemas),
            )
        return self.schemas[source]

    def read(self, source: str) -> Read:
        return Read(source, self.schema(source))

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
            now_ms=self.options.now_ms,
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
            out.append((expr, self.output_name(item, expr), item))
        names = [name for _, name, _ in out]
        for expr, name, node in out:
            if names.count(name) > 1:
                raise resolver.scope.error(
                    "DUPLICATE_NAME", f"two selections are named {name!r}", node, "give one an alias with AS"
                )
        return out

    @staticmethod
    def output_name(item: SelectItem, expr: Scalar) -> str:
        """An item's alias, else its column name, else its text."""
        if item.alias:
            return item.alias
        text = item.expr.text
        if isinstance(expr, Field):
            # a column keeps its own name (without the data source in front)
            return text.rsplit(".", 1)[-1].strip("`") if "." in text else unquote_name(text)
        return text


def positive(ref: ValueRef) -> Callable[[Results], bool]:
    """Whether a counted value came out above zero (a record output has rows)."""
    return lambda results: (results.value(ref) or 0) > 0


def rename_all(read: Read, rename: Callable[[str], str], keep: set[str] | None = None) -> Relation:
    """``read`` with columns renamed (only those in ``keep``, when given)."""
    columns = [c for c in read.schema.columns if keep is None or c.name in keep]
    if not columns:
        columns = list(read.schema.columns[:1])
    return Project(read, tuple(Named(Field(c.name, c.dtype), rename(c.name)) for c in columns))
