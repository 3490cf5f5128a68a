"""Griffin's metric sinks, as an env.json defines them and a job config names them.

``console`` (and ``log``) print Griffin's metric document to standard error (Griffin logs it);
``hdfs`` writes Griffin's layout ``<path>/<job>/<tmst>/_START``, ``_METRICS`` and ``_FINISH`` to a
local folder or ``file://`` URL (``<job>`` as ``safe_file_name`` spells it, so it stays in ``<path>``).
Sinks that need a service (Elasticsearch, HTTP, MongoDB, custom classes) or a real HDFS are refused
before the run, naming the sink.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gryph.compiler.errors import InvalidInput
from gryph.compiler.safe_names import path_inside
from gryph.compiler.suites.suite import Suite

from ..outputs.visible_text import for_terminal, json_for_terminal
from ..results.output_files import check_writable_path, write_whole
from ..results.run_result import json_safe

if TYPE_CHECKING:  # a run without an env.json loads no Griffin config reader
    from gryph.compiler.griffin.document import Node

    from .env import GriffinEnv

CONSOLE = ("console", "log")
FILES = ("hdfs",)
ELSEWHERE = ("es", "elasticsearch", "http", "mongo", "mongodb", "custom")
# Griffin's MeasureTypes names, as its metric documents spell them
MEASURE_TYPE_NAMES = {
    "griffin.completeness": "Completeness",
    "griffin.duplication": "Duplication",
    "griffin.profiling": "Profiling",
    "griffin.accuracy": "Accuracy",
    "griffin.sparksql": "SparkSQL",
    "griffin.schemaconformance": "SchemaConformance",
}


@dataclass(frozen=True)
class Sink:
    """One resolved sink: its kind (console or files) and, for files, the parent folder."""

    name: str
    kind: str
    folder: Path | None = None


def resolve_sinks(suite: Suite, env: GriffinEnv | None) -> list[Sink]:
    """The sinks a job names, looked up in the env.json (by name, else by type, ignoring case)."""
    if env is None or not suite.sinks:
        return []
    out = []
    for wanted in suite.sinks:
        node = next((s for s in env.sinks if (s.text("name") or "").lower() == wanted.lower()), None) or next(
            (s for s in env.sinks if (s.text("type") or "").lower() == wanted.lower()), None
        )
        if node is None:
            known = [s.text("name") or s.text("type") or "" for s in env.sinks]
            raise InvalidInput(
                "BAD_CONFIG",
                f"the job names sink {wanted!r}, which the env.json does not define",
                text=wanted,
                hint=f"defined: {', '.join(known) or 'none'}",
            )
        out.append(_sink(node, wanted))
    return out


def _sink(node: Node, wanted: str) -> Sink:
    kind = (node.text("type", required=True) or "").lower()
    if kind in CONSOLE:
        return Sink(wanted, "console")
    if kind in FILES:
        path_node = node.obj("config").child("path")
        path = node.obj("config").text("path", required=True) or ""
        if path.startswith("file://"):
            path = path[len("file://") :]
        if "://" in path:
            raise path_node.error(
                "UNSUPPORTED",
                f"sink {wanted!r} writes to {path!r}, which gryph cannot reach",
                "give a local folder (or file:// URL) as the sink's path",
            )
        check_writable_path(f"sink {wanted!r} path", path, folder=True)
        return Sink(wanted, "files", Path(path))
    if kind in ELSEWHERE:
        raise node.child("type").error(
            "UNSUPPORTED",
            f"sink {wanted!r} of type {kind!r} is not written by gryph",
            "use a console or hdfs sink with a local path, or --output/--format json",
        )
    raise node.child("type").unknown_value(CONSOLE + FILES + ELSEWHERE, "sink type")


def metric_documents(suite: Suite, metrics: dict, application_id: str) -> list[dict]:
    """Griffin's flushed metric documents (MetricWrapper.flush): one for the job's rules, or one
    per measure (generation B) with the measure's name, type and data source, and its metrics
    as ``{metric_name, metric_value}`` entries."""
    job = {"job_name": suite.name, "tmst": suite.timestamp_ms, "applicationId": application_id}
    measures = [rule for rule in suite.rules if rule.kind in MEASURE_TYPE_NAMES]
    if not measures:
        return [{**job, "metrics": metrics}]
    return [
        {
            **job,
            "measure_name": rule.name,
            "measure_type": MEASURE_TYPE_NAMES[rule.kind],
            "data_source": rule.source,
            "metrics": [
                {"metric_name": name, "metric_value": value} for name, value in (metrics.get(rule.name) or {}).items()
            ],
        }
        for rule in measures
    ]


def write_sinks(sinks: list[Sink], suite: Suite, metrics: dict, application_id: str) -> None:
    """Write the run's metrics to every sink (one JSON document a line in ``_METRICS``)."""
    lines = [
        json.dumps(json_safe(document), ensure_ascii=False)
        for document in metric_documents(suite, metrics, application_id)
    ]
    for sink in sinks:
        if sink.folder is None:  # a console sink
            for line in lines:
                print(for_terminal(f"Metrics of job '{suite.name}':") + "\n" + json_for_terminal(line), file=sys.stderr)
            continue
        folder = Path(path_inside(str(sink.folder), suite.name)) / str(suite.timestamp_ms)
        write_whole(application_id, str(folder / "_START"))
        write_whole("".join(line + "\n" for line in lines), str(folder / "_METRICS"))
        write_whole("", str(folder / "_FINISH"))
