"""A Griffin job config as the text of a native suite, for ``gryph export odcs`` (which writes that
suite as a contract: compiler/contracts/contract_export.py): each plain file
connector a ``source`` statement, each griffin-dsl rule the statement of its kind with its
``details`` as ``with`` options. What has no statement of the same metrics (``pre.proc`` steps,
spark-sql rules, generation B ``measures``, connector options, metric outputs renamed or
flattened, ``__tmst``) is refused at its place in the config."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InvalidInput, Location
from ..suites.suite import RuleSpec, Suite
from .df_ops import is_df_ops
from .document import load_document
from .job import load_griffin_job

_FILE_FORMATS = ("parquet", "json", "avro", "orc")
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
    if config.get("measures"):
        message = "generation B measures have no suite statement of the same metrics"
        raise _refused(message, document.key_location(("measures",)))
    if suite.views:
        message = "pre.proc steps, where filters and unions of connectors have no suite statement"
        raise _refused(message, document.key_location(("data.sources",)))
    folder = Path(path).resolve().parent
    lines = [f"suite {_name_of(suite, where)}"]
    lines += [_source_line(name, suite, folder) for name in suite.sources]
    entries = [entry for entry in config["evaluate.rule"]["rules"] if not _is_df_ops(entry)]
    rule_texts = [str(entry.get("rule", "")) for entry in entries]
    lines += [_rule_line(rule, rule_text) for rule, rule_text in zip(suite.rules, rule_texts, strict=True)]
    return "\n".join(lines) + "\n"


def _is_df_ops(entry: dict[str, object]) -> bool:
    return is_df_ops(str(entry.get("dsl.type", "") or "").lower().replace("-", ""))


def _name_of(suite: Suite, where: Location) -> str:
    if not _NAME.match(suite.name):
        raise _refused(f"the job's name {suite.name!r} is not a suite name (letters, digits, _)", where)
    return suite.name


def _source_line(name: str, suite: Suite, folder: Path) -> str:
    spec = suite.sources[name]
    if spec.format not in _FILE_FORMATS or len(spec.paths) != 1 or spec.options or spec.schema is not None:
        raise _refused(
            f"data source {name!r}: only one {', '.join(_FILE_FORMATS)} file without options or a schema "
            "has a source statement that reads it as Griffin does",
            spec.location or Location(suite.file or "", 1, 1),
        )
    relative = os.path.relpath(spec.paths[0], folder).replace(os.sep, "/")
    return f"source {name} = {spec.format}({_string(relative)})"


def _rule_line(rule: RuleSpec, text: str) -> str:
    if rule.kind not in _STATEMENT_KINDS:
        raise _refused(f"a {rule.kind} rule has no suite statement of the same metrics", rule.location)
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
