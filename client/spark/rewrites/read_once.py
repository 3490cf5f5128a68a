"""Read each source once per run: a source several scans need is kept on the cluster for the run.

Spark plans are trees: two queries over one file read it twice, and so do two branches of one
query (an accuracy join and an aggregate). A source the run would scan more than once is read
once into the executors' storage (``localCheckpoint``, serialized, spilling to disk), with only
the columns the run uses; every query then reads that copy. The copy lives as long as the run's
DataFrames: Spark Connect releases it when the client drops them.

In a run that is not small (small_runs.py), small sources are not copied: reading them again
costs less than the copy's job. Nor is a source only a few rows of which are read again (a record
sample's ``LIMIT`` over a filtered scan, in the run's second step): Spark stops reading each file
split at the limit, where a copy would read every row.

A small run keeps its sources too, but lazily and in one partition: the copy is made by the run's
one action, in the stage that first reads it, so it costs a request (planned on the server, no
job). Spark carries the copy's single partition into every plan over it, and a single partition
needs no exchange: examples/users.dq's action went from 16 stages of 27 tasks (each small file
scanned 3-5 times, each aggregate and join behind a shuffle) to 4 stages of 15 tasks, and its
server time from 0.73 s to 0.32 s on a warm local server.
"""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession
from pyspark.storagelevel import StorageLevel

from gryph.compiler.plan import Aggregate, Filter, Limit, Project, Read, Relation, Sql, View, inputs
from gryph.compiler.plan.pruning import columns_read
from gryph.compiler.sources.source_specs import SourceSpec

from ..compile.relations import splits_in_two
from ..compile.scalars import column
from ..session.failures import first_line
from .small_sources import is_small

# Serialized in memory, spilling to disk. At 10M rows of the benchmark's 13 columns it was
# written about 10% faster than deserialized rows, a group-by over it ran 1.6x faster (a plain
# aggregate 1.6x slower), and the whole suite took 115-120 s against 127-143 s.
STORAGE = StorageLevel.MEMORY_AND_DISK


def scans(relations, views: tuple[View, ...] = ()) -> Counter:
    """How many times Spark scans each source to compute ``relations`` (views read through)."""
    through: dict[str, Counter] = {}  # what reading a view scans
    for view in views:
        through[view.name] = _expand(_scans(view.relation), through)
    total: Counter = Counter()
    for rel in relations:
        total += _expand(_scans(rel), through)
    return total


def _scans(rel: Relation, times: int = 1) -> Counter:
    if isinstance(rel, Read):
        return Counter({rel.source: times})
    if isinstance(rel, Sql):
        return Counter({table: times for table in rel.tables})
    if isinstance(rel, Aggregate) and splits_in_two(rel):
        times *= 2
    out: Counter = Counter()
    for child in inputs(rel):
        out += _scans(child, times)
    return out


def _expand(counts: Counter, through: Mapping[str, Counter]) -> Counter:
    out: Counter = Counter()
    for name, times in counts.items():
        if name in through:
            out += Counter({source: n * times for source, n in through[name].items()})
        else:
            out[name] += times
    return out


def sources_to_keep(
    relations, views: tuple[View, ...], sources: Mapping[str, SourceSpec], small: bool, once: Iterable[str] = ()
) -> dict:
    """Sources scanned more than once, with the columns to keep (None: all of them).

    A source ``once`` names (Plan.read_once: one a quarantine split reads) is kept small or not:
    its metrics and outputs come from one read of its files.

    Frames are not kept: their rows travel with the plan and cost no file read. In a run that is
    not ``small``, small sources (``small_runs.is_small``) are not kept, and a scan that stops
    early (``stops_early``) does not count; if the source is kept anyway, it reads the copy too,
    so the copy holds its columns. In a ``small`` run every scan counts: a scan of the copy needs
    no exchange, not even under a ``LIMIT``.
    """
    relations = list(relations)
    columns = columns_read(relations + [v.relation for v in views])
    counted = relations if small else [rel for rel in relations if not stops_early(rel, sources)]
    return {
        name: columns.get(name)
        for name, times in scans(counted, views).items()
        if times > 1
        and name in sources
        and sources[name].kind.family != "memory"
        and (small or not is_small(sources[name]) or name in once)
    }


def stops_early(rel: Relation, sources: Mapping[str, SourceSpec]) -> bool:
    """Whether ``rel`` is a ``LIMIT`` over filters and projections of one source: Spark reads
    each file split only until the limit's rows are found."""
    if not isinstance(rel, Limit):
        return False
    rel = rel.input
    while isinstance(rel, Filter | Project):
        rel = rel.input
    return isinstance(rel, Read) and rel.source in sources


@dataclass(frozen=True)
class Copies:
    """The sources a run keeps: each with the columns to keep (None: all of them), lazily in one
    partition if the run is ``small``, and numbered in the named column if ``numbered`` names
    the source (numbered_rows.py)."""

    kept: Mapping[str, frozenset[str] | None] = field(default_factory=dict)
    small: bool = False
    numbered: Mapping[str, str] = field(default_factory=dict)


def keep_all(loaded: Mapping[str, DataFrame], copies: Copies) -> dict[str, DataFrame]:
    """The ``loaded`` sources, those ``copies`` keeps read once: side by side, so that one
    source's last tasks and the next one's first share the cores (a few seconds at 10M rows on
    two), and a small run's requests overlap."""
    wanted = [name for name in loaded if name in copies.kept]
    with ThreadPoolExecutor(max_workers=max(1, min(4, len(wanted)))) as pool:
        made = {
            name: pool.submit(keep, loaded[name], copies.kept[name], name, copies.small, copies.numbered.get(name))
            for name in wanted
        }
        return {name: made[name].result() if name in made else df for name, df in loaded.items()}


def keep(
    df: DataFrame, columns: frozenset[str] | None, name: str, small: bool = False, numbered: str | None = None
) -> DataFrame:
    """``df`` (only ``columns``, and each row's number in column ``numbered``) read once and kept
    for the run; ``df`` itself where the server refuses. A ``small`` source is copied into one
    partition by the first stage that reads it."""
    if columns is not None:
        # by name, in a fixed order: ``df.columns`` would be a schema request of its own, and
        # one outside the handling below when the server is gone
        df = df.select(*(column(c) for c in sorted(columns)))
    if numbered is not None:
        # unique, and fixed once the copy is made (the numbers follow the copy's partitions)
        df = df.withColumn(numbered, F.monotonically_increasing_id())
    try:
        with _active(df.sparkSession):
            if small:
                return df.repartition(1).localCheckpoint(eager=False, storageLevel=STORAGE)
            return df.localCheckpoint(eager=True, storageLevel=STORAGE)
    except PySparkException as exc:
        # e.g. an endpoint without checkpoints. The queries still run over the source itself; if
        # the data is at fault they fail too, each with an error naming its query.
        warnings.warn(
            f"{name!r} could not be kept for the run, so each scan computes it again ({first_line(exc)})", stacklevel=2
        )
        return df


@contextlib.contextmanager
def _active(session: object) -> Iterator[None]:
    """``session`` (a Connect session, which ``DataFrame.sparkSession`` types as a classic one) as
    this thread's active session for the block.

    PySpark (4.0-4.3) binds a checkpoint's DataFrame to the active session, not to the session
    that made it: with several sessions in one process, the copy would be looked up (and
    released) in the wrong one.
    """
    local = SparkSession._active_session
    previous = getattr(local, "session", None)
    local.session = session
    try:
        yield
    finally:
        local.session = previous
