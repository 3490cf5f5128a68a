"""A Griffin job config as the text of a native suite, for ``gryph export odcs`` (which writes that
suite as a contract: compiler/contracts/contract_export.py): each file connector a ``source``
statement with its options, each griffin-dsl rule the statement of its kind with its ``details`` as
``with`` options, each generation-B measure a ``griffin`` statement
(suites/griffin_measure_statements.py). What has no statement of the same metrics (``pre.proc``
steps, ``where`` filters, spark-sql rules, metric outputs renamed or flattened, ``__tmst``) is
refused at its place in the config."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InvalidInput, Location, with_article
from ..language.ruletree.fast_expressions import KEYWORDS
from ..rule_kinds import RuleKind, spec_of
from ..suites.griffin_measure_specs import (
    AccuracyConfig,
    CompletenessConfig,
    DuplicationConfig,
    ProfilingConfig,
    SchemaConformanceConfig,
)
from ..suites.suite import RuleSpec, Suite
from .df_ops import is_df_ops
from .document import JsonPath, load_document
from .job import load_griffin_job

_FILE_FORMATS = ("csv", "parquet", "json", "avro", "orc")
_PLAIN_NAME = re.compile(r"^[^\W\d]\w*$")
_STATEMENT_KINDS = {"accuracy", "profiling", "completeness", "uniqueness", "distinctness", "timeliness"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def griffin_suite_text(path: str | Path) -> str:
    """The native suite stating the same sources and rules as the Griffin job config at ``path``."""
    suite = load_griffin_job(path)  # every error of the config, located, before anything is written
    document = load_document(path)
    where = document.location(())
    if "__tmst" in document.text:
        raise _refused("__tmst (the job's time on every row) has no suite statement", where)
    config = document.root.value
    assert isinstance(config, dict)  # load_griffin_job refused any other
    pre_proc = _pre_proc(config)
    if pre_proc is not None:
        message = (
            "pre.proc steps (Spark SQL over a connector's rows before the rules read them) have no suite "
            "statement: a suite's sources are the files themselves"
        )
        raise _refused(message, document.key_location(pre_proc))
    measure_queries = {f"{rule.name}__query" for rule in suite.rules if rule.kind == RuleKind.GRIFFIN_SPARK_SQL}
    if any(view.name not in measure_queries for view in suite.views):
        message = "where filters and unions of connectors have no suite statement"
        raise _refused(message, document.key_location(("data.sources",)))
    folder = Path(path).resolve().parent
    lines = [f"suite {_name_of(suite, where)}"]
    lines += [_source_line(name, suite, folder) for name in suite.sources]
    if config.get("measures"):
        lines += [_measure_line(rule, entry) for rule, entry in zip(suite.rules, config["measures"], strict=True)]
    else:
        entries = [entry for entry in config["evaluate.rule"]["rules"] if not _is_df_ops(entry)]
        rule_texts = [str(entry.get("rule", "")) for entry in entries]
        lines += [_rule_line(rule, rule_text) for rule, rule_text in zip(suite.rules, rule_texts, strict=True)]
    return "\n".join(lines) + "\n"


def _pre_proc(config: dict[str, object]) -> JsonPath | None:
    """Where the first connector's ``pre.proc`` steps stand, if any connector has them."""
    sources = config.get("data.sources")
    for index, source in enumerate(sources if isinstance(sources, list) else []):
        if not isinstance(source, dict):
            continue
        several = source.get("connectors")
        connectors: list[tuple[JsonPath, object]] = [(("connector",), source.get("connector"))]
        connectors += [(("connectors", number), item) for number, item in enumerate(several or [])]
        for at, connector in connectors:
            if isinstance(connector, dict) and connector.get("pre.proc"):
                return ("data.sources", index, *at, "pre.proc")
    return None


def _is_df_ops(entry: dict[str, object]) -> bool:
    return is_df_ops(str(entry.get("dsl.type", "") or "").lower().replace("-", ""))


def _name_of(suite: Suite, where: Location) -> str:
    if not _NAME.match(suite.name):
        raise _refused(f"the job's name {suite.name!r} is not a suite name (letters, digits, _)", where)
    return suite.name


def _source_line(name: str, suite: Suite, folder: Path) -> str:
    spec = suite.sources[name]
    if spec.format not in _FILE_FORMATS or len(spec.paths) != 1 or spec.schema is not None:
        raise _refused(
            f"data source {name!r}: only one {', '.join(_FILE_FORMATS)} file without a schema "
            "has a source statement that reads it as Griffin does",
            spec.location or Location(suite.file or "", 1, 1),
        )
    relative = os.path.relpath(spec.paths[0], folder).replace(os.sep, "/")
    options = "".join(f", {key} = {_option(value)}" for key, value in spec.options)
    return f"source {name} = {spec.format}({_string(relative)}{options})"


def _option(value: object) -> str:
    """A connector option's value (Griffin's are text, numbers or booleans) as the source statement's."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, (int, float)) else _string(str(value))


def _measure_line(rule: RuleSpec, entry: dict[str, object]) -> str:
    """A generation-B measure as the ``griffin`` statement that reads into the same rule."""
    kind, body = RuleKind(rule.kind), rule.body
    config = entry.get("config") if isinstance(entry.get("config"), dict) else {}
    assert isinstance(config, dict)
    options: dict[str, object] = {}
    if isinstance(body, CompletenessConfig):
        items = body.condition.text
    elif isinstance(body, DuplicationConfig):
        items = ", ".join(_column(column.name) for column in body.columns) or "*"
        options["bad.record.definition"] = body.bad
    elif isinstance(body, ProfilingConfig):
        items = ", ".join(_column(column.name) for column in body.columns) or "*"
        options |= {"approx.distinct.count": body.approximate_name, "round.scale": body.round_scale}
    elif isinstance(body, AccuracyConfig):
        items = ", ".join(
            f"{rule.source}.{_column(left.name)} = {rule.target}.{_column(right.name)}" for left, right in body.pairs
        )
    elif isinstance(body, SchemaConformanceConfig):
        types = [str(item.get("type", "")).strip() for item in config.get("expr") or [] if isinstance(item, dict)]
        items = ", ".join(f"cast({_column(c.column.name)} as {t})" for c, t in zip(body.checks, types, strict=True))
    else:  # sparkSQL: the query as written, and the condition over its rows
        items = _string(str(config.get("expr", "")))
        options["bad.record.definition"] = str(config.get("bad.record.definition", ""))
    if rule.metric is None:
        options["metric"] = False
    if rule.record_name is None and kind is not RuleKind.GRIFFIN_PROFILING:
        options["records"] = False
    head = f"griffin {spec_of(kind).griffin_names[0]} {rule.name} on {rule.source}"
    head += f", {rule.target}" if rule.target else ""
    details = ", ".join(f"{key} = {_option(value)}" for key, value in options.items())
    return f"{head}: {items}" + (f" with {details}" if details else "")


def _column(name: str) -> str:
    """A column name as the suite language reads it (backquoted unless a plain word)."""
    if _PLAIN_NAME.match(name) and name.lower() not in KEYWORDS:
        return name
    return "`" + name.replace("`", "``") + "`"


def _rule_line(rule: RuleSpec, text: str) -> str:
    if rule.kind not in _STATEMENT_KINDS:
        raise _refused(f"{with_article(rule.kind)} rule has no suite statement of the same metrics", rule.location)
    if rule.metric is not None and (rule.metric.name not in (None, rule.name) or rule.metric.flatten != "default"):
        raise _refused(
            f"rule {rule.name!r}: a metric output renamed or flattened has no suite statement", rule.location
        )
    if not _NAME.match(rule.name) or "error.confs" in rule.details:
        raise _refused(f"rule {rule.name!r}: its name or error.confs has no suite statement", rule.location)
    body = " ".join(text.split())
    if rule.kind == "profiling":
        head = f"profiling {rule.name}" + (f" on {rule.source}" if rule.source else "")
        body = body if body.lower().startswith("select ") else f"select {body}"
    else:
        sources = ", ".join(name for name in (rule.source, rule.target) if name)
        head = f"{rule.kind} {rule.name} on {sources}"
    options = ", ".join(f"{key} = {_value(value, rule)}" for key, value in rule.details.items())
    return f"{head}: {body}" + (f" with {options}" if options else "")


def _value(value: object, rule: RuleSpec) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list) and all(isinstance(item, (int, float, str)) for item in value):
        return "(" + ", ".join(_value(item, rule) for item in value) + ")"
    raise _refused(f"rule {rule.name!r}: a detail of value {value!r} has no suite statement", rule.location)


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _refused(message: str, location: Location) -> InvalidInput:
    return InvalidInput("CONTRACT_UNSUPPORTED", f"export: {message}", location=location)
