"""What every lowering shares: the checked rule, its output names, and the hand-off to finishing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..analysis.checked_rules import CheckedRule
from ..plan import Export, Field, Limit, Named, Project, Read, Relation
from ..plan.data_types import Schema
from ..plan.printer import table_label
from ..results import MetricWrite, RecordOutput, RuleResult
from ..rule_kinds import RULE_KINDS, RuleKind, metric_name
from ..safe_names import path_inside, safe_file_name
from .query_collector import Collector, Results, RowsRef, ValueRef

if TYPE_CHECKING:  # row_failures reads the accuracy lowering, which reads this module
    from .row_failures import Split

Finisher = Callable[[Results], RuleResult]
Checked = TypeVar("Checked", bound=CheckedRule)


@dataclass
class Options:
    """Knobs of one compilation."""

    record_sample: int = 20  # rows of each record output brought back (0: none)
    now_ms: int = 0  # the run's time, for timeliness rules without an end column
    data_time_ms: int | None = None  # the moment the run's data is about (--data-time): freshness's reference
    # where full record outputs are written on the engine's side: a folder, or "table:PREFIX"
    records_to: str | None = None
    count_rows: bool = False  # count the rows of every source read (the run's task metrics)
    # a stream's sources in one micro-batch: their rows and malformed messages are always counted
    streams: tuple[str, ...] = ()
    # when set, only these record outputs (``rule__output``) are written to ``records_to`` (a
    # stream keeps its accuracy rules' misses there, to match them again in the next batch)
    export_only: frozenset[str] | None = None
    # (source, path): a stream's batch rows written whole where the engine runs, for the windows
    # of later batches' uniqueness and distinctness
    keep_rows: tuple[tuple[str, str], ...] = ()
    # sources whose rows are split into quarantined and valid outputs (row_failures.py)
    splits: tuple[Split, ...] = ()

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
        return path if table is None else f"table {table_label(table)}"

    def _target(self, name: str) -> tuple[str | None, tuple[str, ...] | None] | None:
        """A file of the folder, or a table: the prefix's dots separate its schema, the name's
        never do. Both are named by ``safe_file_name``, so a folder and a table hold the same names."""
        if not self.records_to or (self.export_only is not None and name not in self.export_only):
            return None
        if self.records_to.startswith("table:"):
            *schema, start = self.records_to[len("table:") :].split(".")
            return None, (*schema, start + safe_file_name(name))
        return path_inside(self.records_to, name, ".parquet"), None


class RuleLowering(Generic[Checked]):
    """Helpers for lowering one checked rule; a subclass per DQ type implements ``lower``."""

    kinds: tuple[RuleKind, ...] = ()

    def __init__(self, checked: Checked, schemas: Mapping[str, Schema], collector: Collector, options: Options) -> None:
        self.checked = checked
        self.rule = checked.spec
        self.schemas = schemas
        self.collector = collector
        self.options = options

    def name_of(self, key: str) -> str:
        """A metric's name: renamed in the details, else the key itself (Griffin's getStringOrKey)."""
        if key not in RULE_KINDS[self.checked.kind].metrics:
            raise KeyError(f"{key!r} is no metric key of {self.checked.kind} in compiler/rule_kinds.py")
        return metric_name(key, self.rule.details)

    def metric_names(self) -> dict[str, str]:
        """Every metric key of the rule's kind (the registry's), with the name it is written under."""
        return {key: self.name_of(key) for key in RULE_KINDS[self.checked.kind].metrics}

    def write(self, rows: list[dict[str, Any]]) -> MetricWrite:
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
    def read(self, source: str) -> Read:
        """A source the check pass found in the schemas."""
        return Read(source, self.schemas[source])


def positive(ref: ValueRef) -> Callable[[Results], bool]:
    """Whether a counted value came out above zero (a record output has rows)."""
    return lambda results: (results.value(ref) or 0) > 0


def rename_all(read: Read, rename: Callable[[str], str], keep: set[str] | None = None) -> Relation:
    """``read`` with columns renamed (only those in ``keep``, when given)."""
    columns = [c for c in read.schema.columns if keep is None or c.name in keep]
    if not columns:
        columns = list(read.schema.columns[:1])
    return Project(read, tuple(Named(Field(c.name, c.dtype), rename(c.name)) for c in columns))
