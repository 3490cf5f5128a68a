"""A suite's run as OpenLineage run events: START when it begins, then COMPLETE, or FAIL when a
blocking check failed or the run broke. The job is the suite, its inputs the suite's sources
(dataset_names.py); the last event carries per input the data-quality metrics and assertions,
both as input facets and as dataset facets (as dbt's integration emits them), and the run's
``test`` facet."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from typing import cast

from openlineage.client.event_v2 import InputDataset, Job, Run, RunEvent, RunState
from openlineage.client.generated.base import DatasetFacet, InputDatasetFacet, JobFacet, RunFacet
from openlineage.client.generated.data_quality_assertions_dataset import DataQualityAssertionsDatasetFacet
from openlineage.client.generated.data_quality_metrics_dataset import (
    ColumnMetrics,
    DataQualityMetricsDatasetFacet,
)
from openlineage.client.generated.data_quality_metrics_input_dataset import (
    ColumnMetrics as InputColumnMetrics,
)
from openlineage.client.generated.data_quality_metrics_input_dataset import (
    DataQualityMetricsInputDatasetFacet,
)
from openlineage.client.generated.error_message_run import ErrorMessageRunFacet
from openlineage.client.generated.job_type_job import JobTypeJobFacet
from openlineage.client.generated.processing_engine_run import ProcessingEngineRunFacet
from openlineage.client.generated.test_run import TestRunFacet

from gryph.compiler.redaction import redact
from gryph.compiler.suites.suite import Suite

from ..outputs.headline import error_text
from ..results.document import ResultDocument
from .check_facets import judged_checks
from .dataset_names import DatasetName, dataset_name
from .measured_columns import SourceMetrics, measured

# the client's RunEvent requires a producer URI: gryph's, with its version
_PRODUCER = "urn:gryph:{version}"


def _gryph_version() -> str:
    try:
        return version("gryph")
    except PackageNotFoundError:  # a checkout run without installing
        return "0"


@dataclass(frozen=True)
class LineageRun:
    """One run's identity in OpenLineage: its id, job and inputs."""

    run_id: str
    namespace: str
    suite: Suite
    engine: str
    streaming: bool = False

    def inputs(self) -> dict[str, DatasetName]:
        """Each source by name, as its dataset."""
        return {name: dataset_name(spec, self.engine) for name, spec in self.suite.sources.items()}

    def start(self, moment: datetime | None = None) -> RunEvent:
        return self._event(RunState.START, moment or datetime.now(timezone.utc), {}, self._datasets({}, {}))

    def end(self, document: ResultDocument, passed: bool) -> RunEvent:
        """COMPLETE when the run passed, else FAIL (a blocking check failed, or the run broke)."""
        facets: dict[str, RunFacet] = {}
        checks = judged_checks(self.suite, document)
        if checks:
            facets["test"] = TestRunFacet(tests=[check.execution() for check in checks])
        if document.error is not None:
            facets["errorMessage"] = ErrorMessageRunFacet(
                message=redact(error_text(document.error.code, document.error.message)), programmingLanguage="python"
            )
        assertions = {
            source: [check.assertion() for check in checks if source in check.sources] for source in self.suite.sources
        }
        inputs = self._datasets(measured(self.suite, document), assertions)
        state = RunState.COMPLETE if passed and document.error is None else RunState.FAIL
        return self._event(state, datetime.now(timezone.utc), facets, inputs)

    def _event(
        self, state: RunState, moment: datetime, facets: dict[str, RunFacet], inputs: list[InputDataset]
    ) -> RunEvent:
        gryph = _gryph_version()
        facets = {
            "processing_engine": ProcessingEngineRunFacet(version=gryph, name="gryph"),
            **facets,
        }
        job_type = JobTypeJobFacet(
            processingType="STREAMING" if self.streaming else "BATCH", integration="GRYPH", jobType="CHECK"
        )
        return RunEvent(
            eventType=state,
            eventTime=moment.isoformat(),
            run=Run(runId=self.run_id, facets=facets),
            job=Job(namespace=self.namespace, name=self.suite.name, facets={"jobType": cast(JobFacet, job_type)}),
            inputs=inputs,
            producer=_PRODUCER.format(version=gryph),
        )

    def _datasets(self, metrics: dict[str, SourceMetrics], assertions: dict[str, list]) -> list[InputDataset]:
        datasets: dict[DatasetName, InputDataset] = {}
        for source, name in self.inputs().items():
            facets: dict[str, DatasetFacet] = {}
            input_facets: dict[str, InputDatasetFacet] = {}
            if source in metrics:
                measured_here = metrics[source]
                facets["dataQualityMetrics"] = DataQualityMetricsDatasetFacet(
                    columnMetrics={c: ColumnMetrics(**m) for c, m in measured_here.columns.items()},  # type: ignore[arg-type]
                    rowCount=measured_here.row_count,
                )
                input_facets["dataQualityMetrics"] = DataQualityMetricsInputDatasetFacet(
                    columnMetrics={c: InputColumnMetrics(**m) for c, m in measured_here.columns.items()},  # type: ignore[arg-type]
                    rowCount=measured_here.row_count,
                )
            if assertions.get(source):
                judged = DataQualityAssertionsDatasetFacet(assertions=assertions[source])
                input_facets["dataQualityAssertions"] = judged
                facets["dataQualityAssertions"] = cast(DatasetFacet, judged)
            if name not in datasets:  # two sources of one table: one input
                datasets[name] = InputDataset(
                    namespace=name.namespace, name=name.name, facets=facets, inputFacets=input_facets
                )
        return list(datasets.values())
