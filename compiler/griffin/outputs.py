"""A rule's or measure's ``out`` entries (and the older ``metric``/``record`` keys), as Griffin reads them."""

from __future__ import annotations

from ..suites.suite import MetricOutput
from .document import Node
from .known_keys import check_keys

# Griffin's FlattenType names; ``list`` is Griffin's other name for ``array``
FLATTENS = {"default": "default", "entries": "entries", "array": "array", "list": "array", "map": "map"}
OUTPUT_TYPES = ("metric", "record", "records", "dsc-update", "dscupdate")


def read_outputs(entry: Node) -> tuple[MetricOutput | None, str | None]:
    """The metric output (name, flatten) and the record output's name of a rule or measure.

    A ``dsc-update`` output refreshes a streaming data source's cache in Griffin; a batch job has
    none, so it changes nothing here either.
    """
    metric = None
    record = None
    for output in entry.items("out"):
        if not isinstance(output.value, dict):
            raise output.error("BAD_CONFIG", f"{output.where} must be an object with a type")
        check_keys(output, "out")
        type_node = output.child("type")
        kind = (output.text("type", required=True) or "").lower()
        if kind not in OUTPUT_TYPES:
            raise type_node.unknown_value(("metric", "record", "dsc-update"), "output type")
        if kind == "metric":
            metric = MetricOutput(output.text("name") or None, _flatten(output))
        elif kind in ("record", "records"):
            record = output.text("name") or None
    if metric is None and isinstance(entry.child("metric").value, dict):
        old = entry.obj("metric")
        metric = MetricOutput(old.text("name") or None, _flatten(old, "collect.type"))
    if record is None and isinstance(entry.child("record").value, dict):
        record = entry.obj("record").text("name") or None
    return metric, record


def _flatten(output: Node, key: str = "flatten") -> str:
    node = output.child(key)
    value = (output.text(key, "default") or "default").lower()
    if value not in FLATTENS:
        raise node.unknown_value(tuple(FLATTENS), "flatten")
    return FLATTENS[value]
