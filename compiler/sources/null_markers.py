"""A source's null markers: the texts read as no value (``nullValue = "NA"``, or several,
``nullValue = ["n/a", "-"]``), decided here once for both engines.

Spark's csv reader takes one marker and infers the types of a file with it; DuckDB's takes a
list. Several markers are therefore applied to the text of declared columns (read as text, then
cast: typed_text.py), where both engines make the same values NULL; a source whose types are
inferred takes one, which both readers infer alike.
"""

from __future__ import annotations

from ..errors import InvalidInput
from .source_specs import SourceSpec

NULL_VALUE = "nullValue"
LIST_OPTIONS = (NULL_VALUE,)  # the options that may hold several texts, ["a", "b"]


def null_markers(spec: SourceSpec) -> tuple[str, ...]:
    """The texts ``spec`` reads as NULL besides an empty field, in the order given."""
    value = spec.option(NULL_VALUE)
    if value is None:
        return ()
    return tuple(dict.fromkeys(str(v) for v in value)) if isinstance(value, tuple) else (str(value),)


def check_option_lists(spec: SourceSpec) -> None:
    """Refuse a list where an option takes one value, and several markers without declared types."""
    for key, value in spec.options:
        if isinstance(value, tuple) and key not in LIST_OPTIONS:
            raise InvalidInput(
                "SOURCE_BAD_OPTION",
                f"source {spec.name!r}: option {key} takes one value, not a list",
                location=spec.location,
                text=key,
            )
    if len(null_markers(spec)) > 1 and spec.schema is None:
        raise InvalidInput(
            "SOURCE_BAD_OPTION",
            f"source {spec.name!r}: several null markers ({', '.join(map(repr, null_markers(spec)))}) need "
            "declared types: the engines infer a file's types with one",
            location=spec.location,
            text=NULL_VALUE,
            hint='declare its types, schema = "id bigint, price double, ..." (gryph suggest writes them), '
            'or give one marker, nullValue = "NA"',
        )
