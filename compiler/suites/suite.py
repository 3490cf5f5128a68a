"""The compiler's input, whatever format it came from: sources, pre-processing views, rules,
and the measure -> check -> pass task of native suites."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Location
from ..language.ruletree.check_nodes import CheckExpr
from ..language.ruletree.nodes import AccuracyBody, SelectList, SelectQuery
from ..language.ruletree.statements import SegmentBy
from ..plan.data_types import DataType
from ..sources.source_specs import SourceSpec
from .griffin_measure_specs import MeasureConfig
from .kept_rows import KeptView


@dataclass(frozen=True)
class MetricOutput:
    """How a rule's metric rows are written (Griffin's ``out`` entry of type ``metric``)."""

    name: str | None = None
    flatten: str = "default"  # default | entries | array | map


@dataclass(frozen=True)
class NativeSql:
    """A measure's SQL run as written inside its database: the hidden ``source`` whose query it is."""

    source: str
    text: str


# what a rule's body may be: a DSL rule's tree, Spark SQL text, a native measure's SQL, or a
# Griffin measure's config
RuleBody = AccuracyBody | SelectQuery | SelectList | str | NativeSql | MeasureConfig


@dataclass
class RuleSpec:
    """One rule: its DQ type, name, the sources it reads and its parsed body.

    ``body`` is the parsed rule (a ``ruletree`` accuracy body, select list or query), for
    ``sql`` rules the SQL text, for Griffin's measures their config (``griffin_measures``).
    ``details`` are Griffin's rule details (metric renames, options).
    """

    kind: str
    name: str
    source: str | None
    target: str | None
    body: RuleBody
    details: dict[str, object]
    location: Location
    metric: MetricOutput | None = None
    record_name: str | None = None
    # per detail option: where its key and where its value stand
    detail_locations: dict[str, tuple[Location, Location]] = field(default_factory=dict)
    # what an accuracy rule reads in place of its source or target, under their names (in a stream:
    # the batch and the misses it matches again, a target's earlier rows; kept_reads.py)
    reads: dict[str, str] = field(default_factory=dict)
    segment: SegmentBy | None = None  # `by COLUMN`: the metrics per value of the column too


@dataclass
class MeasureSpec(RuleSpec):
    """A query that returns one row, lowered like a profiling rule (``body``: a query, Spark SQL
    text, or ``NativeSql``).

    ``shape`` says how the row is reported: one value, a list or a map; ``None`` means a
    value for one column and a map for several.
    """

    shape: str | None = None


@dataclass(frozen=True)
class CheckSpec:
    """A named boolean expression (as parsed); a warning never fails the run."""

    name: str
    expr: CheckExpr
    location: Location
    warn: bool = False
    segment: SegmentBy | None = None  # `by COLUMN`: judged once per segment of the metrics it reads


@dataclass(frozen=True)
class SchemaSpec:
    """A schema statement: the columns source ``source`` must have (``exact``: and no others), each
    of its type (None: any type). It is a check named ``schema <source>``, never a warning."""

    source: str
    exact: bool
    columns: tuple[tuple[str, DataType | None], ...]
    location: Location
    text: str
    warn: bool = False
    # columns whose stated type gryph cannot compare (a contract's physicalType of a domain, uuid):
    # (column, the type as stated), shown beside the check, their presence still checked
    uncompared: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return f"schema {self.source}"


@dataclass(frozen=True)
class StatedColumn:
    """The column a contract's property names (``name``: the property's path), read by each clause
    the contract derives from the property: one the data lacks is one error, at ``location``."""

    column: str
    name: str
    location: Location | None = None


@dataclass(frozen=True)
class RowClause:
    """A clause whose failures are rows of ``source`` though no row-level rule states it (a
    contract's ``required``, a pattern, a key): quarantine flags them, naming the clause ``name``
    with ``condition`` what it checks. The failing rows are those the measure ``measure`` counts
    (``rows(T where P)``: where P holds), or with ``keys`` those whose key (no part NULL) another
    row holds too, or with ``rule`` those the row-level rule of that name fails."""

    name: str
    source: str
    condition: str
    measure: str | None = None
    keys: tuple[str, ...] = ()
    rule: str | None = None
    location: Location | None = None
    stated: tuple[StatedColumn, ...] = ()  # the properties it is derived from (none: a clause the user wrote)


DEFAULT_NOTIFY_TIMEOUT_SECONDS = 10.0  # one delivery, start to end: a slow target never holds up the run


@dataclass(frozen=True)
class NotifySpec:
    """Where an alert goes when the run's verdict changes: ``kind`` is webhook (a generic JSON
    document), slack, teams or smtp; ``secret_env`` names the environment variable holding its
    secret (a webhook's bearer token, the SMTP password), read at run time, never stored;
    ``timeout_seconds`` bounds one delivery from its first byte to its last; ``tones``, ``checks``,
    ``segments`` and ``repeat_ms`` route it (client/alerts/routing.py)."""

    kind: str
    url: str  # without the slack:/teams: prefix
    secret_env: str | None = None
    location: Location | None = None
    timeout_seconds: float = DEFAULT_NOTIFY_TIMEOUT_SECONDS
    tones: tuple[str, ...] = ()  # `on fail, error`: the tones it is told of (empty: fail, warn and error)
    checks: tuple[str, ...] = ()  # `for "a", "b"`: the checks it watches (empty: every check)
    repeat_ms: int | None = None  # `repeat = 6h`: an open incident is told again this often
    segments: tuple[object, ...] = ()  # `for segments "ES", "FR"`: the segments it watches (empty: every one)


@dataclass(frozen=True)
class PassSpec:
    """When the run passes: ``always``, ``all``, ``any``, ``checks`` (the named ones) or ``passed``
    (the number of passing checks compared with ``count`` by ``op``). A native suite without a
    ``pass when`` line is ``all``; a Griffin job, which has no checks, ``always``."""

    kind: str = "always"
    names: tuple[str, ...] = ()
    op: str | None = None
    count: int | None = None
    location: Location | None = None

    def __str__(self) -> str:
        if self.kind == "checks":
            return "checks(" + ", ".join(f'"{name}"' for name in self.names) + ")"
        if self.kind == "passed":
            return f"passed {self.op} {self.count}"
        return self.kind


@dataclass(frozen=True)
class ViewSpec:
    """A pre-processing step: Spark SQL whose result is registered under ``name``.

    With ``union_of``, the view is instead the rows of those sources or views over the columns
    they all have (Griffin's union of several connectors), in the first one's column order; with
    ``stamp_of``, the rows of that one with Griffin's ``__tmst``. With
    ``json_of`` (a source or view, and its column or None for the first), it is the table of the
    JSON documents in that column (Griffin's ``from_json``, see json_frames.py).
    """

    name: str
    sql: str
    location: Location
    union_of: tuple[str, ...] = ()
    json_of: tuple[str, str | None] | None = None
    # Griffin's __tmst: the rows of this source or view with the suite's time (``timestamp_ms``,
    # a stream's batch time) as the column ``__tmst``, unless they have one
    stamp_of: str | None = None
    # rows a stream kept that a batch reads again (kept_reads.py)
    kept: KeptView | None = None


@dataclass
class Suite:
    """A parsed suite or Griffin job, ready for name and type checks."""

    name: str
    sources: dict[str, SourceSpec]
    rules: list[RuleSpec]
    views: list[ViewSpec] = field(default_factory=list)
    file: str | None = None
    griffin: bool = False  # metrics laid out as Griffin's metric wrapper would
    measures: list[MeasureSpec] = field(default_factory=list)
    checks: list[CheckSpec] = field(default_factory=list)
    policy: PassSpec = PassSpec()
    sinks: tuple[str, ...] = ()  # Griffin: the env.json sinks a job writes its metrics to
    timestamp_ms: int | None = None  # Griffin: the job's time (its __tmst)
    # ``stream every 30s`` (Griffin: ``batch.interval``): the trigger of ``gryph stream``
    stream_every_ms: int | None = None
    schemas: list[SchemaSpec] = field(default_factory=list)  # ``schema users: required(...)`` checks
    notify: tuple[NotifySpec, ...] = ()  # ``notify "URL"``: alerts when the verdict changes
    # ``quarantine orders to "out/bad"`` / ``valid orders to delta("out/good")``: (source, kind) ->
    # (folder, format: parquet or delta)
    outputs: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    # the outputs that are tables a run commits into (iceberg, postgres, ``table:`` in --database), as
    # sources of that kind name them: (source, kind) -> the table's description
    output_tables: dict[tuple[str, str], SourceSpec] = field(default_factory=dict)
    data_time: str | None = None  # ``data_time = "2026-11-24"`` (or ``= ${day}``): keys the run's history
    row_clauses: tuple[RowClause, ...] = ()  # a contract's row-level clauses (a quarantine reads them)

    # Griffin: the data sources (views) over a kafka connector, whose rows are a stream's
    stream_views: tuple[str, ...] = ()

    @property
    def streams(self) -> tuple[str, ...]:
        """The sources read a micro-batch at a time (kafka, folder): such a suite runs as a stream."""
        return tuple(name for name, spec in self.sources.items() if spec.kind.stream)

    @property
    def streamed(self) -> tuple[str, ...]:
        """What holds a batch's rows: the stream sources and the views made of them alone."""
        return self.streams + self.stream_views
