"""Charts to images with vl-convert: SVG for the page, PNG/SVG files for CI systems. Rendering
is offline: a spec may fetch no data."""

from __future__ import annotations

import vl_convert

from gryph.compiler.safe_names import path_inside

from ...results.output_files import write_whole
from .chart import Chart

NO_URLS: list[str] = []  # allowed_base_urls: specs carry their data inline, nothing is fetched


def to_svg(chart: Chart) -> str:
    return vl_convert.vegalite_to_svg(chart.vega_lite, allowed_base_urls=NO_URLS)


def to_png(chart: Chart) -> bytes:
    return vl_convert.vegalite_to_png(chart.vega_lite, scale=2, allowed_base_urls=NO_URLS)


def write_images(charts: list[Chart], folder: str, kind: str) -> list[str]:
    """Each chart as ``folder/ID.svg`` or ``.png`` (each file written whole); the paths written."""
    paths = []
    for chart in charts:
        path = path_inside(folder, chart.id, f".{kind}")
        write_whole(to_svg(chart) if kind == "svg" else to_png(chart), path)
        paths.append(path)
    return paths
