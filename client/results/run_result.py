"""The outcome of a run and its JSON form: what the runner makes and history, report and gate read."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from gryph.compiler.checks.verdict import CheckOutcome
from gryph.compiler.redaction import redact_document
from gryph.compiler.results import RuleResult, Segments

from .document import FORMAT_VERSION, VERSION_KEY, ResultDocument, read_document


@dataclass
class RunResult:
    """The outcome of one run: metrics by rule (or Griffin's merged map), record samples, and the
    measure -> check -> pass task: measure values, check outcomes and the verdict."""

    name: str
    engine: str
    started: str
    duration_seconds: float
    metrics: dict
    records: dict
    rules: list[RuleResult] = field(default_factory=list, repr=False)
    measures: dict = field(default_factory=dict)
    checks: list[CheckOutcome] = field(default_factory=list)
    passed: bool = True
    policy: str = "always"
    rows_read: dict[str, int] = field(default_factory=dict)  # rows of each source read
    # each rule's kind and one-value details, for the HTML report to pick and read its charts
    rule_kinds: dict[str, dict] = field(default_factory=dict)
    run_id: str | None = None  # set when the run is stored in a history
    data_time: str | None = None  # the moment the run's data is about (--data-time), as shown
    # rules and measures whose result broke its contract (too many rows, not one row): their errors
    failed: dict[str, dict] = field(default_factory=dict)
    malformed: dict[str, int] = field(default_factory=dict)  # a stream batch's messages that did not parse
    # per csv source of declared types, its columns' values that did not parse: count, type, first examples
    malformed_values: dict[str, dict] = field(default_factory=dict)
    # a stream's batch: its number, time (__tmst) and what each stream source read (gryph stream)
    stream: dict | None = None
    # each source's columns and their logical types, as the engine reported them (no scan)
    schemas: dict[str, dict[str, str]] = field(default_factory=dict)
    # each Delta or Iceberg source's version, rows and commit time, from its table's log (no scan)
    table_logs: dict[str, dict] = field(default_factory=dict)
    # a run that broke before its checks judged: code, message and exit code (errored_runs.py)
    error: dict | None = None
    measure_segments: dict[str, Segments] = field(default_factory=dict)  # measures `by COLUMN`
    # per source split by --quarantine-to: its quarantine and valid folders, their rows and the run's id
    outputs: dict[str, dict] = field(default_factory=dict)

    def warnings_failed(self) -> bool:
        # a skipped warning (it could not judge yet) is no failed one
        return any(check.status == "WARN" for check in self.checks)

    def to_dict(self) -> dict:
        # the one form of a run that JSON output, history and the HTML report are made from
        return redact_document(self._unredacted())

    def _unredacted(self) -> dict:
        document = {
            VERSION_KEY: FORMAT_VERSION,  # document.py reads this format and the earlier ones
            "name": self.name,
            "engine": self.engine,
            "started": self.started,
            **({"data_time": self.data_time} if self.data_time is not None else {}),
            "duration_seconds": round(self.duration_seconds, 3),
            "metrics": self.metrics,
            "records": self.records,
            "measure": self.measures,
            # null: a check that could not judge yet (SKIP), neither passed nor failed
            "check": {check.name: None if check.skipped is not None else check.passed for check in self.checks},
            "pass": self.passed,
            "metric": self.task_metric(),
            "policy": self.policy,
            "rules": self.rule_kinds,
            "check_details": [
                {
                    "name": check.name,
                    "expression": check.expression,
                    "status": check.status,
                    "values": check.values,
                    "error": check.error,
                    **({"skipped": check.skipped} if check.skipped is not None else {}),
                    # an anomaly check's finding: the history leaves anomalies out of later baselines
                    **({"anomaly": check.anomaly} if check.anomaly is not None else {}),
                    **({"watches": check.watches} if check.watches is not None else {}),
                    **({"reads": check.reads} if check.reads else {}),
                    **({"bounds": check.bounds} if check.bounds else {}),
                    **({"failing_rows": check.failing_rows} if check.failing_rows else {}),
                    **({"segments": [_segment_outcome(v, o) for v, o in check.segments]} if check.segments else {}),
                }
                for check in self.checks
            ],
        }
        if self.failed:
            document["failed"] = self.failed
        if self.malformed_values:
            document["malformed_values"] = self.malformed_values
        if self.stream is not None:
            document["stream"] = self.stream
        if self.schemas:
            document["schemas"] = self.schemas
        if self.table_logs:
            document["table_logs"] = self.table_logs
        if self.error is not None:
            document["error"] = self.error
        segmented = {rule.rule: rule.segments for rule in self.rules if rule.segments is not None}
        if segmented:
            document["segments"] = {name: _segments_part(segments) for name, segments in segmented.items()}
        if self.measure_segments:
            document["measure_segments"] = {
                name: _segments_part(segments) for name, segments in self.measure_segments.items()
            }
        if self.outputs:
            document["outputs"] = self.outputs
        return document

    def document(self, redacted: bool = True) -> ResultDocument:
        """The run's result document, typed, as reports and alerts read it; the terminal's text
        report and CI files read it as the run found it (``redacted`` False)."""
        return read_document(self.to_dict() if redacted else self._unredacted())

    def task_metric(self) -> dict:
        """The run's task metrics, as the DolphinScheduler proposal stores them beside measure/check/pass."""
        return {"rowsCounter": self.rows_read, "timeElapsed": round(self.duration_seconds * 1000)}


def _segments_part(segments: Segments) -> dict:
    """A rule's or measure's values per segment, as the document holds them."""
    return {
        "column": segments.column,
        "cap": segments.cap,
        "capped": segments.capped,
        "at": segments.location,
        # a list, not a map: a segment's value may be NULL or any type
        "values": [{"segment": value, "metrics": metrics} for value, metrics in segments.values],
    }


def json_safe(value: object) -> object:
    """NaN and infinities have no JSON form: they travel as the strings "NaN", "Infinity"."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def to_json(document: dict, one_line: bool = False) -> str:
    """The document as JSON text: indented, or on one line (a stream prints a document per line)."""
    indent = None if one_line else 2
    return json.dumps(json_safe(document), indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


def _segment_outcome(value: object, outcome: CheckOutcome) -> dict:
    """One segment of a `by COLUMN` check: its value, status, what it read, its error or why it
    skipped, and an anomaly check's finding there."""
    return {
        "segment": value,
        "status": outcome.status,
        "values": outcome.values,
        **({"error": outcome.error} if outcome.error is not None else {}),
        **({"skipped": outcome.skipped} if outcome.skipped is not None else {}),
        **({"anomaly": outcome.anomaly} if outcome.anomaly is not None else {}),
    }
