"""Griffin's ``env.json`` beside a job config: the Spark settings it asks for and its sinks.

``spark.config`` entries are set on the Spark session where Spark allows it at run time; cluster
settings (``spark.master``, executor memory, ...) belong to the server and are reported as not
applied. ``sinks`` define where Griffin writes metrics; a job config names the ones it uses
(``client/griffin/sinks.py`` writes them). Checkpoints serve streaming jobs only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gryph.compiler.griffin.document import Node, load_document
from gryph.compiler.language.time_literals import duration_ms


@dataclass
class GriffinEnv:
    """What an env.json holds for a run, and for a stream its ``batch.interval`` (the trigger)
    and the streaming settings gryph has no use for (its own state replaces them)."""

    spark_config: dict[str, str] = field(default_factory=dict)
    sinks: list[Node] = field(default_factory=list)  # each sink definition, located
    batch_interval_ms: int | None = None
    not_applied: list[str] = field(default_factory=list)


def load_env(path: str | Path) -> GriffinEnv:
    """Read an env.json; a value of the wrong type is a located error."""
    root = load_document(path).root
    if not isinstance(root.value, dict):
        raise root.error("BAD_CONFIG", "a Griffin env.json is a JSON object")
    if root.has("data.sources") or root.has("evaluate.rule") or root.has("measures"):
        raise root.error(
            "BAD_CONFIG",
            f"{Path(path).name} is a Griffin job config, not an env.json",
            "give the job config as the file and the env.json with --env",
        )
    config = root.obj("spark").obj("config")
    settings = {}
    for key in config.keys():
        value = config.child(key)
        if isinstance(value.value, (dict, list)) or value.value is None:
            raise value.error(
                "BAD_CONFIG",
                f"{value.where} must be a setting's value (text, number or boolean)",
                '"spark": {"config": {"spark.sql.shuffle.partitions": "8"}}',
            )
        settings[key] = config.text(key, required=True) or ""  # a JSON null was refused above
    sinks = root.items("sinks")
    for sink in sinks:
        if not isinstance(sink.value, dict):
            raise sink.error("BAD_CONFIG", f"{sink.where} must be a sink object with a name and a type")
    return GriffinEnv(settings, sinks, _batch_interval(root), _streaming_not_applied(root))


def _batch_interval(root: Node) -> int | None:
    node = root.obj("spark").child("batch.interval")
    try:
        return duration_ms(node.value)
    except ValueError as error:
        raise node.error("BAD_CONFIG", f"{node.where} {error}", '"batch.interval": "30s"') from None


def _streaming_not_applied(root: Node) -> list[str]:
    """The streaming settings of an env.json that gryph's streams do without: ZooKeeper holds
    Griffin's times (gryph's state file holds offsets), Spark checkpoints and a second timer."""
    spark = root.obj("spark")
    found = [spark.child(key).where for key in ("checkpoint.dir", "process.interval", "init.clear") if spark.has(key)]
    return found + [root.child(key).where for key in ("griffin.checkpoint", "info.cache") if root.has(key)]


def load_spark_config(path: str | Path) -> dict[str, str]:
    """The ``spark.config`` map of an env.json (empty when it has none)."""
    return load_env(path).spark_config
