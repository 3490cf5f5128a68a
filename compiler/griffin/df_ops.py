"""Griffin's data-frame operations (``dsl.type`` ``df-ops``/``df-opr``): ``from_json`` reads a column
of JSON documents as a table (compiler/griffin/json_frames.py); Griffin's other operations serve
streaming jobs and are refused by name."""

from __future__ import annotations

from ..suites.suite import ViewSpec
from .document import Node

DF_OPS = ("dfops", "dfopr", "dfoperations")


def is_df_ops(dsl: str) -> bool:
    """Whether a ``dsl.type`` (lower-cased, dashes removed) names a data-frame operation."""
    return dsl in DF_OPS


def from_json_view(step: Node, output: str, default_input: str) -> ViewSpec:
    """The view a ``from_json`` step makes; its input is ``in.dataframe.name`` or ``details.df.name``."""
    operation = (step.text("rule", required=True) or "").strip().lower()
    if operation != "from_json":
        raise step.child("rule").error(
            "UNSUPPORTED",
            f"data-frame operation {operation!r} is not run here (Griffin uses it in streaming jobs)",
            "only from_json is",
        )
    details = step.obj("details")
    source = step.text("in.dataframe.name") or details.text("df.name") or default_input
    return ViewSpec(output, "", step.location, json_of=(source, details.text("col.name")))
