"""Small sources: local files of a few megabytes, which a run neither copies, nor compiles code
for, nor spreads over several tasks.

Copying a source for the run (read_once.py) is a job of its own, 0.2-0.6 s on a warm local
server, more than reading a few megabytes again. And Spark Connect compiles the generated Java
of every stage anew for each session (its classes load in the session's own class loader), so
a warm server still spends most of a small run compiling: 56-84 classes, 7-17 s of compiler
time for examples/users.dq on a loaded 2-core machine, against 1-4 s for its whole run with
Spark's interpreted expressions. A run that reads only small sources runs interpreted.

Nor do a few megabytes need partitions or adaptive execution: with one shuffle partition,
no adaptive query stages and no broadcasts, examples/users.dq's action is one Spark job of one
task per stage instead of 16 jobs (each adaptive stage and each broadcast is a job of its own),
and the server spends about a fifth less CPU on it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Mapping

from pyspark.sql.connect.session import SparkSession

from gryph.compiler.plan import Relation, View, reads
from gryph.compiler.sources.databases import is_database
from gryph.compiler.sources.source_specs import SourceSpec

from ..compile.relations import has_sql

# Local files smaller than this together count as small. A Spark task reads a few megabytes of
# CSV or parquet in tens of milliseconds; copying them or compiling code for them costs more.
SMALL_SOURCE_BYTES = 16 * 2**20

SMALL_RUN_SETTINGS: dict[str, str | int | bool] = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
}


def is_small(spec: SourceSpec) -> bool:
    """Whether ``spec`` is files on this machine, together under ``SMALL_SOURCE_BYTES`` (a
    table, a database, a frame, or a path not found here may be any size)."""
    if spec.kind.holds != "paths" or is_database(spec) or not spec.paths:
        return False
    total = 0
    for path in spec.paths:
        size = _bytes_here(path)
        if size is None:
            return False
        total += size
    return total < SMALL_SOURCE_BYTES


def _bytes_here(path: str) -> int | None:
    """The bytes of the files ``path`` names here (a file, a folder's tree, a glob's matches);
    None when nothing here matches it."""
    matches = glob.glob(path, recursive=True) if set("*?[") & set(path) else [path]
    total, found = 0, False
    for match in matches:
        if os.path.isfile(match):
            total, found = total + os.path.getsize(match), True
        elif os.path.isdir(match):
            total += sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(match) for f in files)
            found = True
    return total if found else None


def reads_only_small(relations: Iterable[Relation], views: tuple[View, ...], sources: Mapping[str, SourceSpec]) -> bool:
    """Whether ``relations`` (through ``views``) read small sources only; Spark SQL text may
    name any table of the catalog, so a run with some is not small."""
    everything = [view.relation for view in views] + list(relations)
    if has_sql(everything):
        return False
    names = {name for rel in everything for name in reads(rel)} - {view.name for view in views}
    return all(name in sources and is_small(sources[name]) for name in names)


def set_for_small_run(spark: SparkSession) -> dict[str, str | None]:
    """Run the session's queries as a small run; returns the settings to put back.

    One request reads the settings and one sets them (RuntimeConf.set takes one at a time).
    """
    previous = dict(zip(SMALL_RUN_SETTINGS, spark.client.get_configs(*SMALL_RUN_SETTINGS), strict=True))
    spark.conf._set_all(SMALL_RUN_SETTINGS, silent=False)
    return previous


def restore(spark: SparkSession, previous: Mapping[str, str | None]) -> None:
    """Put back the settings ``set_for_small_run`` returned (unset where there were none)."""
    spark.conf._set_all({key: value for key, value in previous.items() if value is not None}, silent=False)
    for key, value in previous.items():
        if value is None:
            spark.conf.unset(key)
