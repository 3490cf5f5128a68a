"""Apache Griffin batch job configs (``dq.json``), read unchanged into a ``Suite``.

Griffin's defaults hold: the baseline source (else the first) is the rule's source and the
next one its target; a rule's metric name defaults to ``out.dataframe.name``; ``pre.proc``
steps run as Spark SQL over the connector's ``dataframe.name``.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import InvalidInput, Location
from .native import parse_schema_columns
from .parser import RULE_GRAMMARS, parse
from .sources import FILE_FORMATS, SourceSpec
from .suite import MetricOutput, Origin, RuleSpec, Suite, ViewSpec

FLATTENS = ("default", "entries", "array", "map")


class _Config:
    """The raw JSON with the file name, for located errors."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise InvalidInput("FILE_NOT_FOUND", f"cannot read {path}: {error.strerror}", None, str(path)) from None
        try:
            self.data = json.loads(self.text)
        except json.JSONDecodeError as error:
            raise InvalidInput("BAD_CONFIG", f"not valid JSON: {error.msg}",
                               Location(str(path), error.lineno, error.colno)) from None
        if not isinstance(self.data, dict):
            raise InvalidInput("BAD_CONFIG", "a Griffin job config is a JSON object", Location(str(path), 1, 1))

    def locate(self, needle: str) -> Location:
        """Where a string value first appears in the file (its first character)."""
        encoded = json.dumps(needle)[1:-1]
        index = self.text.find(encoded)
        if index < 0:
            return Location(str(self.path))
        line = self.text.count("\n", 0, index) + 1
        column = index - (self.text.rfind("\n", 0, index) + 1) + 1
        return Location(str(self.path), line, column)

    def error(self, code: str, message: str, near: str | None = None, hint: str | None = None) -> InvalidInput:
        return InvalidInput(code, message, self.locate(near) if near else Location(str(self.path)), near, hint)


def load_griffin_job(path: str | Path) -> Suite:
    """Read a Griffin batch job config into a suite."""
    config = _Config(Path(path))
    data = config.data
    process = str(data.get("process.type", "batch")).lower()
    if process != "batch":
        raise config.error("UNSUPPORTED", f"process.type {process!r}: only batch jobs run here", process)
    sources, views, ordered = _sources(config, data.get("data.sources"))
    rules = _rules(config, data.get("evaluate.rule") or {}, ordered)
    name = str(data.get("name") or config.path.stem)
    return Suite(name, sources, rules, views, str(config.path), griffin=True)


def _sources(config: _Config, entries) -> tuple[dict, list, list[str]]:
    if not isinstance(entries, list) or not entries:
        raise config.error("BAD_CONFIG", "data.sources must list at least one data source", "data.sources")
    # Griffin puts the baseline first: it is every rule's default source
    entries = sorted(entries, key=lambda e: not (isinstance(e, dict) and e.get("baseline")))
    sources: dict[str, SourceSpec] = {}
    views: list[ViewSpec] = []
    ordered = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not name:
            raise config.error("BAD_CONFIG", "every data source needs a name", "data.sources")
        connector = entry.get("connector")
        if connector is None:
            connectors = entry.get("connectors") or []
            if len(connectors) != 1:
                raise config.error("UNSUPPORTED", f"data source {name!r} needs exactly one connector", name)
            connector = connectors[0]
        frame_name = connector.get("dataframe.name") or name
        steps = connector.get("pre.proc") or []
        raw_name = frame_name if steps else name
        sources[raw_name] = _connector(config, raw_name, connector)
        where = (connector.get("config") or {}).get("where")
        current = raw_name
        if where:
            current = f"{name}__where"
            views.append(ViewSpec(current, f"SELECT * FROM `{raw_name}` WHERE {where}", config.locate(where)))
        for index, step in enumerate(steps):
            if str(step.get("dsl.type", "spark-sql")).lower() != "spark-sql":
                raise config.error("UNSUPPORTED", "pre.proc steps must be spark-sql", step.get("dsl.type"))
            last = index == len(steps) - 1
            current = step.get("out.dataframe.name") or (name if last else f"{frame_name}__{index}")
            views.append(ViewSpec(current, str(step.get("rule", "")), config.locate(str(step.get("rule", "")))))
        if current != name:
            views.append(ViewSpec(name, f"SELECT * FROM `{current}`", Location(str(config.path))))
        ordered.append(name)
    return sources, views, ordered


def _connector(config: _Config, name: str, connector: dict) -> SourceSpec:
    kind = str(connector.get("type", "")).lower()
    settings = connector.get("config") or {}
    base = config.path.parent
    if kind == "avro":
        file_name = settings.get("file.name")
        if not file_name:
            raise config.error("BAD_CONFIG", f"avro connector of {name!r} needs file.name", name)
        path = str(Path(settings.get("file.path") or "") / file_name)
        return SourceSpec(name, "avro", paths=(_resolve(base, path),))
    if kind == "file":
        fmt = str(settings.get("format", "parquet")).lower()
        if fmt not in FILE_FORMATS:
            raise config.error("UNSUPPORTED", f"file format {fmt!r} of {name!r}", fmt,
                               f"use one of {', '.join(FILE_FORMATS)}")
        paths = settings.get("paths") or []
        if isinstance(paths, str):
            paths = [paths]
        if not paths:
            raise config.error("BAD_CONFIG", f"file connector of {name!r} needs paths", name)
        options = tuple((str(k), v) for k, v in (settings.get("options") or {}).items())
        schema = None
        if settings.get("schema"):
            schema = parse_schema_columns(
                [(c.get("name"), c.get("type")) for c in settings["schema"]], config.locate(name))
        return SourceSpec(name, fmt, paths=tuple(_resolve(base, p) for p in paths), options=options,
                          schema=schema)
    if kind == "hive":
        table = settings.get("table.name")
        if not table:
            raise config.error("BAD_CONFIG", f"hive connector of {name!r} needs table.name", name)
        database = settings.get("database")
        return SourceSpec(name, "table", table=f"{database}.{table}" if database and database != "default"
                          else table)
    raise config.error("UNSUPPORTED", f"connector type {kind!r} of {name!r}", kind or name,
                       "supported: avro, file, hive")


def _resolve(base: Path, path: str) -> str:
    if "://" in path or Path(path).is_absolute():
        return path
    return str(base.resolve() / path)


def _rules(config: _Config, evaluate: dict, ordered: list[str]) -> list[RuleSpec]:
    rules = []
    for index, entry in enumerate(evaluate.get("rules") or []):
        dsl = str(entry.get("dsl.type", "griffin-dsl")).lower()
        text = entry.get("rule")
        if not isinstance(text, str) or not text.strip():
            raise config.error("BAD_CONFIG", f"rule {index + 1} has no rule text", entry.get("dsl.type"))
        name = str(entry.get("out.dataframe.name") or entry.get("name") or f"rule{index + 1}")
        details = dict(entry.get("details") or {})
        if entry.get("error.confs"):
            details["error.confs"] = entry["error.confs"]
        metric, record_name = _outputs(config, entry)
        location = config.locate(text)
        if dsl == "spark-sql":
            rules.append(RuleSpec("sql", name, None, None, text, {}, location, metric=metric,
                                  record_name=record_name))
            continue
        if dsl != "griffin-dsl":
            raise config.error("UNSUPPORTED", f"dsl.type {dsl!r}", dsl, "use griffin-dsl or spark-sql")
        kind = str(entry.get("dq.type", "")).lower()
        if kind not in RULE_GRAMMARS:
            raise config.error("UNKNOWN_RULE_TYPE", f"unknown dq.type {entry.get('dq.type')!r}",
                               entry.get("dq.type"), f"one of: {', '.join(RULE_GRAMMARS)}")
        origin = Origin(str(config.path), location.line - 1 if location.line else 0,
                        (location.column or 1) - 1)
        model = parse(RULE_GRAMMARS[kind], text, origin.file, origin.line_offset, origin.column_offset)
        source = details.pop("source", None) or ordered[0]
        target = details.pop("target", None) or (ordered[1] if len(ordered) > 1 else None)
        if kind == "accuracy" and target is None:
            raise config.error("MISSING_TARGET", f"accuracy rule {name!r} needs a second data source", text)
        if kind == "uniqueness" and target is None:
            target = source
        if kind == "profiling" and getattr(model.body, "source", None):
            source = None  # the query's FROM names it
        body = model.body
        rules.append(RuleSpec(kind, name, source, target if kind in ("accuracy", "uniqueness") else None,
                              body, details, location, origin, metric, record_name))
    if not rules:
        raise config.error("BAD_CONFIG", "evaluate.rule.rules is empty", "evaluate.rule")
    return rules


def _outputs(config: _Config, entry: dict) -> tuple[MetricOutput | None, str | None]:
    """The metric and record outputs of a rule: ``out`` entries, or the older keys."""
    metric = None
    record = None
    for output in entry.get("out") or []:
        kind = str(output.get("type", "")).lower()
        if kind == "metric":
            flatten = str(output.get("flatten", "default")).lower()
            if flatten not in FLATTENS:
                raise config.error("BAD_CONFIG", f"unknown flatten {flatten!r}", flatten,
                                   f"one of: {', '.join(FLATTENS)}")
            metric = MetricOutput(output.get("name"), flatten)
        elif kind == "record":
            record = output.get("name")
    if metric is None and isinstance(entry.get("metric"), dict):
        old = entry["metric"]
        metric = MetricOutput(old.get("name"), str(old.get("collect.type", "default")).lower())
    if record is None and isinstance(entry.get("record"), dict):
        record = entry["record"].get("name")
    return metric, record
