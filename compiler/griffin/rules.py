"""Generation A: ``evaluate.rule.rules``, each a Griffin DSL or Spark SQL rule, as ``RuleSpec``s.

Griffin's defaults hold: the baseline data source (else the first) is a rule's source and the
next one its target; a rule's metric is named after ``out.dataframe.name``.
"""

from __future__ import annotations

from ..errors import InvalidInput, Location
from ..language.ruletree.convert import parse_rule_text
from ..language.ruletree.nodes import SelectQuery
from ..rule_kinds import RuleKind, griffin_names, spec_of
from ..suites.suite import RuleSpec, ViewSpec
from .df_ops import from_json_view, is_df_ops
from .document import Node
from .known_keys import check_keys
from .outputs import read_outputs

# Griffin's DqType names (case-insensitive) and gryph's own, from the rule kinds' registry
DQ_TYPES = griffin_names("rule")
# Griffin's DslType, compared without dashes and case
DSL_TYPES = {"griffindsl": "griffin-dsl", "sparksql": "spark-sql"}


def read_rules(evaluate: Node, names: list[str], streaming: bool = False) -> tuple[list[RuleSpec], list[ViewSpec]]:
    """The rules of ``evaluate.rule`` and the tables its data-frame operations make; ``names`` are
    the data sources, baseline first. In a ``streaming`` job a distinctness rule keeps its target:
    the stream's earlier rows it is counted against (streaming.py)."""
    rules, views = [], []
    for index, entry in enumerate(evaluate.items("rules")):
        if not isinstance(entry.value, dict):
            raise entry.error("BAD_CONFIG", f"{entry.where} must be a rule object")
        check_keys(entry, "rule")
        if is_df_ops((entry.text("dsl.type", "") or "").lower().replace("-", "")):
            output = entry.text("out.dataframe.name") or entry.text("name") or f"rule{index + 1}"
            views.append(from_json_view(entry, output, names[0]))
            continue
        rules.append(_rule(entry, index, names, streaming))
    if not rules:
        raise evaluate.error(
            "BAD_CONFIG", "evaluate.rule.rules has no rule", '"rules": [{"dq.type": ..., "rule": ...}]'
        )
    return rules, views


def _rule(entry: Node, index: int, names: list[str], streaming: bool) -> RuleSpec:
    dsl_node = entry.child("dsl.type")
    dsl_text = (entry.text("dsl.type", "griffin-dsl") or "").lower()
    dsl = DSL_TYPES.get(dsl_text.replace("-", ""))
    if dsl is None:
        raise dsl_node.unknown_value((*DSL_TYPES.values(), "df-ops"), "dsl.type")
    rule_node = entry.child("rule")
    text = entry.text("rule")
    if text is None or not text.strip():
        raise (rule_node if rule_node.value is not None else entry).error(
            "BAD_CONFIG", f"rule {index + 1} has no rule text"
        )
    name = entry.text("out.dataframe.name") or entry.text("name") or f"rule{index + 1}"
    metric, record_name = read_outputs(entry)
    location = rule_node.location
    if dsl == "spark-sql":
        return RuleSpec(
            RuleKind.SQL.value, name, None, None, text, {}, location, metric=metric, record_name=record_name
        )
    kind_node = entry.child("dq.type")
    kind = DQ_TYPES.get((entry.text("dq.type", "") or "").lower())
    if kind is None:
        raise _unknown_dq_type(kind_node)
    spec = spec_of(kind)
    grammar = spec.grammar
    assert grammar is not None  # every kind Griffin names in dq.type is written in the DSL
    details, detail_locations = _details(entry)
    # the rule's text starts one column after the JSON string's opening quote
    body = parse_rule_text(grammar, text, location.file, (location.line or 1) - 1, location.column or 0)
    named_source, named_target = details.pop("source", None), details.pop("target", None)
    source: str | None = str(named_source) if named_source else names[0]
    target = str(named_target) if named_target else (names[1] if len(names) > 1 else None)
    if spec.target == "required" and target is None:
        raise entry.error(
            "MISSING_TARGET",
            f"{kind} rule {name!r} needs a second data source",
            "add a data source, or name one in details.target",
        )
    if spec.target == "optional" and target is None:
        target = source
    if isinstance(body, SelectQuery) and body.source is not None:
        source = None  # the query's FROM names it
    return RuleSpec(
        kind.value,
        name,
        source,
        target if spec.target != "none" or (streaming and kind == RuleKind.DISTINCTNESS) else None,
        body,
        details,
        location,
        metric,
        record_name,
        detail_locations,
    )


def _unknown_dq_type(node: Node) -> InvalidInput:
    """The error for a missing or unknown ``dq.type``."""
    if node.value is None:
        return node.error("UNKNOWN_RULE_TYPE", "a griffin-dsl rule needs a dq.type", f"one of: {', '.join(DQ_TYPES)}")
    return node.error(
        "UNKNOWN_RULE_TYPE", f"unknown dq.type {node.value!r}", node.unknown_value(tuple(DQ_TYPES), "dq.type").hint
    )


def _details(entry: Node) -> tuple[dict[str, object], dict[str, tuple[Location, Location]]]:
    """The rule's ``details`` (with ``error.confs``) and where each key and value stands."""
    details_node = entry.obj("details")
    assert isinstance(details_node.value, dict)  # obj() gives an object or refuses
    details = dict(details_node.value)
    locations = {
        key: (details_node.doc.key_location((*details_node.path, key)), details_node.child(key).location)
        for key in details
    }
    if entry.has("error.confs"):
        confs = entry.child("error.confs")
        details["error.confs"] = confs.value
        locations["error.confs"] = (entry.doc.key_location(confs.path), confs.location)
    for key in ("source", "target"):
        if key in details and not isinstance(details[key], str):
            raise details_node.child(key).error("BAD_CONFIG", f"details.{key} must name a data source")
    return details, locations
