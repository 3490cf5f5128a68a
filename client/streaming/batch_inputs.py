"""Deciding what the next micro-batch reads, and turning that into bounded sources: each stream
source bounds itself from where the stream left it (stream_source.py); static sources are read
again for every batch as they are."""

from __future__ import annotations

import time
from dataclasses import replace

from gryph.compiler.suites.suite import Suite

from ..store.stream_state import BatchInput, StreamState
from .stream_source import StreamSource, stream_sources


def next_input(sources: dict[str, StreamSource], state: StreamState) -> tuple[BatchInput, dict[str, int]]:
    """The next batch's input, and per stream source what waits beyond it (its lag)."""
    batch_input, lag = BatchInput(), {}
    for name, source in sources.items():
        bound = source.bound(source.start(state), source.default_limit)
        getattr(batch_input, source.part)[name] = list(bound.read)
        lag[name] = bound.lag
        if bound.lost:
            batch_input.lost[name] = bound.lost
    return batch_input, lag


def bounded_suite(suite: Suite, sources: dict[str, StreamSource], batch_input: BatchInput, tmst: int) -> Suite:
    """``suite`` with each stream source bounded to the batch's input, every row stamped ``tmst``
    (a Griffin job's too: its time is the batch's); static sources as they are."""
    bounded = dict(suite.sources)
    for name, source in sources.items():
        bounded[name] = source.bounded(getattr(batch_input, source.part)[name], tmst)
    return replace(suite, sources=bounded, timestamp_ms=tmst)


def validation_batch(suite: Suite) -> Suite:
    """``suite`` with every stream bounded to a batch that validation can read: no rows, or, when
    a view learns its columns from the data (Griffin's ``from_json``), the newest messages of each
    partition and the newest files (there is no schema without documents to read it from)."""
    sampled = any(view.json_of is not None for view in suite.views)
    sources = stream_sources(suite)
    batch_input = BatchInput()
    for name, source in sources.items():
        getattr(batch_input, source.part)[name] = list(source.sample()) if sampled else []
    return bounded_suite(suite, sources, batch_input, int(time.time() * 1000))
