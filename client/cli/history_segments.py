"""``gryph history --segments`` and ``--segment VALUE``: the values of the measures and rules written
`by COLUMN` per segment, as each run stored them, and the one segment a user picks."""

from __future__ import annotations

import json

from gryph.compiler.checks.segment_checks import segment_key, segment_label

# a stored run's segments (history_rows.run_row): per measure its values, per rule its metrics
PARTS = {"measure_segments": "value", "segments": "metrics"}
ALL = object()  # every segment


def wanted_segment(text: str) -> object:
    """``--segment``'s value, written as gryph shows a segment (``"FR"``, ``""``, NULL, ``3``,
    True) or as bare text (``FR``)."""
    if text == "NULL":
        return None
    if text in ("True", "False"):
        return text == "True"
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, str) and text.startswith('"'):
        return value
    return value if isinstance(value, int | float) and not isinstance(value, bool) else text


def _same(value: object, wanted: object) -> bool:
    # a number matches across int and float (3 is the segment 3.0); anything else by its stored key
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, wanted)):
        return value == wanted
    return segment_key(value) == segment_key(wanted)


def with_segments(run: dict, wanted: object = ALL) -> dict | None:
    """The run with its segments after its values over all rows; with ``wanted``, that segment
    alone in each measure and rule split by a column, None when none of them holds it."""
    kept = {
        part: {
            name: {**split, "values": found}
            for name, split in run[part].items()
            if (found := [v for v in split["values"] if wanted is ALL or _same(v["segment"], wanted)])
        }
        for part in PARTS
    }
    return {**without_segments(run), **kept} if wanted is ALL or any(kept.values()) else None


def without_segments(run: dict) -> dict:
    return {key: value for key, value in run.items() if key not in PARTS}


def segment_rows(run: dict, part: str, name: str) -> list[tuple[str, object]]:
    """Each segment of ``name`` in the run: its cell (``country = "FR"``) and its value or metrics."""
    split = run.get(part, {}).get(name)
    if split is None:
        return []
    return [(segment_cell(split["column"], v["segment"]), v[PARTS[part]]) for v in split["values"]]


def segment_cell(column: str, value: object) -> str:
    return f"{column} = {segment_label(value)}"


def stored_segments(runs: list[dict]) -> list[str]:
    """The segments the runs hold, as gryph shows them, each once."""
    return list(
        dict.fromkeys(
            segment_label(v["segment"])
            for run in runs
            for part in PARTS
            for split in run[part].values()
            for v in split["values"]
        )
    )
