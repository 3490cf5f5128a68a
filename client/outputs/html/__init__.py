"""The HTML report of a run and its history, and its charts as image files."""

from __future__ import annotations

from ...results.document import ResultDocument
from .chart import Chart
from .page import figure, html_page
from .render import write_images
from .rule_charts import rule_chart
from .segment_tables import segments_section
from .stream_batches import stream_chart, stream_section
from .trends import trend_charts


class Report:
    """The report of the newest of ``documents`` (result documents of one suite, oldest first), its
    verdict as ``strict`` (``--strict``) gives it."""

    def __init__(self, documents: list[ResultDocument], strict: bool = False) -> None:
        self.strict = strict
        self.document = documents[-1]
        self.previous = documents[-2] if len(documents) > 1 else None
        self.runs = len(documents)
        self.rule_charts: dict[str, Chart] = {}
        for name, rule in self.document.rules.items():
            chart = rule_chart(name, rule.kind, dict(rule.details), self.document.metrics.get(name))
            if chart is not None:
                self.rule_charts[name] = chart
        self.trends = trend_charts(documents)
        self.stream_chart = stream_chart(documents)
        self.stream = stream_section(documents, self.stream_chart, figure)
        self.broken = tuple(document for document in documents if document.error is not None)
        self.segments = segments_section(documents)

    def charts(self) -> list[Chart]:
        stream = [self.stream_chart] if self.stream_chart is not None else []
        return list(self.rule_charts.values()) + stream + self.trends

    def html(self) -> str:
        return html_page(
            self.document,
            self.rule_charts,
            self.trends,
            self.runs,
            self.previous,
            self.stream,
            self.broken,
            self.strict,
            self.segments,
        )

    def write_images(self, folder: str, kind: str) -> list[str]:
        return write_images(self.charts(), folder, kind)
