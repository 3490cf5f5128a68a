"""Apache Griffin job configs (``dq.json``), both generations, read unchanged into a ``Suite``; a
streaming job's (``"process.type": "streaming"``) runs with ``gryph stream`` (streaming.py).

Generation A lists rules under ``evaluate.rule``; generation B (Griffin master) lists
``measures``. As in Griffin, ``measures`` win when both are present.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..suites.suite import Suite
from .connectors import read_data_sources
from .document import Document, Node, load_document
from .known_keys import check_keys
from .rules import read_rules
from .streaming import STREAMING, stream_details

BATCH = "batch"
LATEST_MS = 253402300800000  # 10000-01-01: past it no date can show the job's time


def load_griffin_job(path: str | Path) -> Suite:
    """Read a Griffin job config into a suite."""
    doc = load_document(path)
    root = doc.root
    if not isinstance(root.value, dict):
        raise root.error("BAD_CONFIG", "a Griffin job config is a JSON object")
    _refuse_env_json(doc)
    check_keys(root, "job")
    process = (root.text("process.type", BATCH) or "").lower()
    if process not in (BATCH, STREAMING):
        raise root.child("process.type").unknown_value((BATCH, STREAMING), "process.type")
    # Griffin stamps every row with the job's time (__tmst); rules that read it get the column
    timestamp_ms = int(root.number("timestamp", 0) or time.time() * 1000)
    if not 0 <= timestamp_ms < LATEST_MS:
        raise root.child("timestamp").error("BAD_CONFIG", "timestamp must be epoch milliseconds before year 10000")
    stamp = "__tmst" in doc.text
    data = read_data_sources(root, doc.path.parent, timestamp_ms, stamp, streaming=process == STREAMING)
    measures = root.items("measures")
    if measures:
        from .measures import read_measures

        rules = read_measures(measures, data)
    elif root.has("evaluate.rule") and root.child("evaluate.rule").value is not None:
        check_keys(root.obj("evaluate.rule"), "evaluate.rule")
        rules, views = read_rules(root.obj("evaluate.rule"), data.names, process == STREAMING)
        data.views.extend(views)
    else:
        raise root.error(
            "BAD_CONFIG",
            "the job has neither measures nor evaluate.rule",
            'add "measures": [...] (Griffin master) or "evaluate.rule": {"rules": [...]}',
        )
    if process == STREAMING:
        if not data.stream_of:
            raise root.child("process.type").error(
                "BAD_CONFIG",
                "process.type 'streaming': no data source reads a kafka connector, so there is nothing to stream",
                'read the data as a batch job ("process.type": "batch"), or give a data source a kafka connector',
            )
        rules = stream_details(rules, data.checkpoints, data.same_stream)
    name = root.text("name") or doc.path.stem
    sinks = tuple(_sink_names(root))
    return Suite(
        name,
        data.sources,
        rules,
        data.views,
        doc.file,
        griffin=True,
        sinks=sinks,
        timestamp_ms=timestamp_ms,
        stream_views=tuple(data.stream_views),
    )


def _sink_names(root: Node) -> list[str]:
    names = []
    for item in root.items("sinks"):
        if not isinstance(item.value, str) or not item.value.strip():
            raise item.error("BAD_CONFIG", f"{item.where} must name a sink of the env.json")
        names.append(item.value.strip())
    return names


def _refuse_env_json(doc: Document) -> None:
    """An env.json given where the job config belongs gets a hint instead of a puzzling error."""
    root = doc.root
    if not root.has("data.sources") and (root.has("spark") or root.has("griffin.checkpoint")):
        raise root.error(
            "BAD_CONFIG",
            f"{doc.path.name} is a Griffin env.json, not a job config",
            "give the job config as the file and this one with --env",
        )
