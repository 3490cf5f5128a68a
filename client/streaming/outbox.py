"""Publishing a committed batch as an outbox: each output (its history run, the printed line,
the HTML report, alerts) is marked done in the state as it completes, and the batch is
published once all are. A client killed between two outputs leaves the batch committed with
the rest to do: the next start completes them, in order, before it runs a new batch, so every
output gets every batch, and once (twice only if the kill falls between an output's own write
and its mark: history is keyed by stream and batch number, so even then it stores it once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..results.run_result import RunResult
from .failpoints import reached

if TYPE_CHECKING:  # the CLI names its outputs without loading DuckDB
    from ..store.stream_state import Batch, StreamState


@dataclass(frozen=True)
class Output:
    """A place committed batches are published to; ``name`` keys it in the outbox (and names its
    failpoint: ``GRYPH_STREAM_CRASH_AT=NAME`` kills the client once it is done)."""

    name: str
    publish: Callable[[RunResult], None]


def publish(state: StreamState, batch: Batch, result: RunResult, outputs: Sequence[Output]) -> RunResult:
    """Publish ``batch`` to each of ``outputs`` it has not reached yet, in order, then mark it published."""
    done = state.outputs_done(batch)
    for output in outputs:
        if output.name in done:
            continue
        output.publish(result)
        state.output_done(batch, output.name)
        reached(output.name)
    state.published(batch)
    return result
