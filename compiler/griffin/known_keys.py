"""The keys Griffin knows, one table per kind of object of a job config: what validation holds
each object to and where a misspelt key's hint comes from.

A key Griffin does not know (``"detail"`` for ``details``) is dropped by Griffin's JSON reader;
gryph says so: a warning naming the key and the closest known one (an error with ``--strict``,
which turns ``UnknownKeyWarning`` into an error: see ``client/cli/main.py``).
"""

from __future__ import annotations

import warnings

from ..errors import LocatedWarning, closest
from .document import Node

# Griffin's own keys per object (its *Param classes), including those gryph reads but ignores
KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "job": ("name", "process.type", "timestamp", "data.sources", "evaluate.rule", "measures", "sinks"),
    "data source": ("name", "baseline", "connector", "connectors", "checkpoint"),
    "connector": ("type", "version", "config", "pre.proc", "dataframe.name"),
    "evaluate.rule": ("rules",),
    "rule": (
        "dsl.type",
        "dq.type",
        "in.dataframe.name",
        "out.dataframe.name",
        "rule",
        "name",
        "details",
        "error.confs",
        "cache",
        "out",
        "metric",
        "record",
    ),
    "out": ("type", "name", "flatten"),
    "pre.proc": ("dsl.type", "in.dataframe.name", "out.dataframe.name", "rule", "details", "cache"),
    "measure": ("name", "type", "data.source", "config", "out"),
    # a connector's config, by connector type (jdbc's ``driver`` is Griffin's; gryph picks its own)
    "file config": ("format", "paths", "options", "schema", "skipErrorPaths", "where"),
    "hive config": ("database", "table.name", "where"),
    "avro config": ("file.path", "file.name", "where"),
    "text-dir config": ("dir.path", "data.dir.depth", "where"),
    "jdbc config": ("url", "database", "tablename", "user", "password", "driver", "where"),
}


class UnknownKeyWarning(LocatedWarning):
    """A key of a Griffin config that Griffin does not know; ``error`` is what ``--strict`` raises."""


def check_keys(node: Node, kind: str) -> None:
    """Warn of every key of the object ``node`` that Griffin does not know for a ``kind`` object."""
    if not isinstance(node.value, dict):
        return
    known = KNOWN_KEYS[kind]
    for key in node.value:
        if key in known:
            continue
        best = closest(key, known)
        error = node.child(key).error(
            "UNKNOWN_KEY",
            f"{node.child(key).where}: Griffin knows no key {key!r} here ({kind}); it is ignored",
            f"did you mean {best!r}?" if best else f"known keys: {', '.join(known)}",
            at_key=True,
        )
        warnings.warn(UnknownKeyWarning(error), stacklevel=2)
