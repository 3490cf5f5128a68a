"""One run's lineage from start to end: its START event before the scan, its COMPLETE or FAIL
event after the verdict, to the target the options or the environment name (emitter.py). The
OpenLineage client is loaded only where a target is configured."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from gryph.compiler.suites.suite import Suite

from ..results.document import ResultDocument
from .emitter import LineageDeliveryError, LineageTarget, lineage_target

if TYPE_CHECKING:
    from .events import LineageRun

DEFAULT_NAMESPACE = "gryph"
# a stream's batch is one run, of the same id however often it is published again
_BATCHES = uuid.UUID("6f7a0f35-53c1-4b4a-9f0e-6a1f3c2b9d10")


@dataclass
class RunLineage:
    """A run's events and their target (None: lineage is not configured, nothing is sent)."""

    target: LineageTarget | None = None
    run: LineageRun | None = None

    def start(self, moment: datetime | None = None) -> None:
        if self.target is not None and self.run is not None:
            self.target.emit(self.run.start(moment))

    def end(self, document: ResultDocument, passed: bool) -> None:
        if self.target is not None and self.run is not None:
            self.target.emit(self.run.end(document, passed))

    def batch(self, number: int) -> RunLineage:
        """The lineage of the stream's batch ``number``: a run of its own, of the same id each time."""
        if self.run is None:
            return self
        batch_id = str(uuid.uuid5(_BATCHES, f"{self.run.suite.name}/{number}"))
        return RunLineage(self.target, replace(self.run, run_id=batch_id, streaming=True))

    @property
    def failures(self) -> list[LineageDeliveryError]:
        return self.target.failures if self.target is not None else []


def run_lineage(option: str | None, namespace: str | None, suite: Suite, engine: object) -> RunLineage:
    """The lineage of one run of ``suite`` (a stream's batches: ``batch``), its target checked now:
    a bad ``--openlineage`` is refused before the run."""
    target = lineage_target(option)
    if target is None:
        return RunLineage()
    from .events import LineageRun

    job_namespace = namespace or os.environ.get("OPENLINEAGE_NAMESPACE") or DEFAULT_NAMESPACE
    engine_name = str(getattr(engine, "name", engine))
    return RunLineage(target, LineageRun(str(uuid.uuid4()), job_namespace, suite, engine_name))
