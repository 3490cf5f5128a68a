"""Delta Lake and Iceberg sources: which table, which version of it, through which catalog.

``delta("path", version = N | timestamp = "...")`` reads a Delta table's folder as of a commit;
``iceberg("catalog.db.table" | "path", snapshot = N, catalog.uri = "...", ...)`` an Iceberg table
through a catalog (its ``catalog.*`` options are the catalog's properties, as PyIceberg takes them)
or the table's own folder. DuckDB reads them through their Python readers on the client, Spark
through their Spark packages on the cluster: both from this one description.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import InvalidInput
from ..source_kinds import source_kind
from .source_specs import SourceSpec, check_option_names

CATALOG_PREFIX = source_kind("iceberg").option_prefix  # a catalog's properties: catalog.uri, catalog.warehouse, ...
# the time forms a timestamp option takes: a date, or a date and time (ISO 8601, "T" or a space)
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?(?:Z|[+-]\d{2}:\d{2})?")


@dataclass(frozen=True)
class TableLog:
    """What a Delta or Iceberg table's log says of the version a source reads, no data file read:
    that version (an Iceberg snapshot's id), its rows and the time of its commit (epoch ms, UTC)."""

    version: int | None
    rows: int | None
    committed_ms: int | None

    def report(self) -> dict[str, object]:
        """As the result document shows it: the commit time in ISO 8601, UTC."""
        committed = None
        if self.committed_ms is not None:
            moment = datetime.fromtimestamp(self.committed_ms / 1000, timezone.utc)
            committed = moment.isoformat(timespec="milliseconds")
        return {"version": self.version, "rows": self.rows, "committed": committed}


def is_lake_table(spec: SourceSpec) -> bool:
    return spec.kind.family == "lake"


def check_lake_source(spec: SourceSpec) -> None:
    """Refuse, at parse time, a Delta or Iceberg source whose options could never be read."""
    prefix = spec.kind.option_prefix
    check_option_names(spec, (prefix + "uri", prefix + "warehouse") if prefix else ())
    if spec.option("version") is not None and spec.option("timestamp") is not None:
        raise _bad(spec, "delta(...) takes version = or timestamp =, not both", spec.as_written())
    for key in ("version", "snapshot"):
        value = spec.option(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise _bad(spec, f"{key} must be a whole number >= 0", str(value))
    if spec.option("timestamp") is not None:
        delta_timestamp(spec)
    if spec.kind.paths_are == "files_or_names" and not iceberg_is_path(spec) and len(iceberg_identifier(spec)) < 3:
        raise _bad(
            spec,
            "an Iceberg table is named catalog.namespace.table (or given by its folder's path)",
            spec.paths[0],
            'iceberg("lake.sales.orders", catalog.uri = "sqlite:///catalog.db")',
        )


def delta_timestamp(spec: SourceSpec) -> datetime | None:
    """The ``timestamp`` option as a moment (UTC unless it names its offset), or None."""
    value = spec.option("timestamp")
    if value is None:
        return None
    text = str(value).strip()
    moment = None
    if _TIMESTAMP.fullmatch(text):
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            moment = None
    if moment is None:
        raise _bad(
            spec,
            f"timestamp {value!r} is not a date or a date and time",
            str(value),
            'write e.g. timestamp = "2024-06-01 12:00:00" (UTC) or "2024-06-01T12:00:00+02:00"',
        )
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def spark_timestamp(moment: datetime) -> str:
    """A moment as Spark's ``timestampAsOf`` reads it whatever the session's time zone."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f") + "Z"


def iceberg_is_path(spec: SourceSpec) -> bool:
    """Whether an Iceberg source names its table's folder (or metadata file) rather than a catalog's table."""
    where = spec.paths[0]
    return "/" in where or "\\" in where or where.endswith(".json")


def newest_metadata_file(names: Iterable[str], version_hint: str | None) -> str | None:
    """Of the file names in an Iceberg table's ``metadata/`` folder, the one its readers start
    from: the version hint's (``v<hint>.metadata.json``), else the highest-numbered
    ``*.metadata.json``; None where there is none."""
    if version_hint is not None:
        return f"v{version_hint.strip()}.metadata.json"
    found = [
        (int(m.group(1)), name)
        for name in names
        if name.endswith(".metadata.json") and (m := re.match(r"v?(\d+)", name))
    ]
    return max(found)[1] if found else None


def iceberg_identifier(spec: SourceSpec) -> tuple[str, ...]:
    """``catalog.namespace.table`` split into its parts (a namespace may have several)."""
    return tuple(part.strip() for part in spec.paths[0].split("."))


def catalog_properties(spec: SourceSpec) -> dict[str, str]:
    """The Iceberg catalog's properties the suite gives (``catalog.uri`` as ``uri``)."""
    return {key[len(CATALOG_PREFIX) :]: str(value) for key, value in spec.options if key.startswith(CATALOG_PREFIX)}


def missing_snapshot(spec: SourceSpec, known: Iterable[int]) -> InvalidInput:
    """``LAKE_VERSION_NOT_FOUND`` for the Iceberg snapshot the source asks for, naming the ones
    the table has (the same words on both engines)."""
    listed = ", ".join(map(str, known)) or "none"
    return InvalidInput(
        "LAKE_VERSION_NOT_FOUND",
        f"source {spec.name!r} ({spec.describe()}): snapshot {spec.option('snapshot')} does not exist: "
        f"the table's snapshots are {listed}",
        location=spec.location,
        text=spec.as_written(),
    )


def _bad(spec: SourceSpec, problem: str, text: str, hint: str | None = None) -> InvalidInput:
    return InvalidInput("BAD_SOURCE", f"source {spec.name!r}: {problem}", location=spec.location, text=text, hint=hint)
