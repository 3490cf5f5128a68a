"""Griffin's ``env.json`` beside a job config: the Spark settings it asks for.

Only ``spark.config`` means something to gryph: each entry is set on the Spark session where
Spark allows it at run time. Cluster settings (``spark.master``, executor memory, ...) belong
to the server and are reported as not applied; ``sinks`` and checkpoints are Griffin's own
outputs, which gryph replaces with its result document, history and record exports.
"""

from __future__ import annotations

import json
from pathlib import Path

from gryph.compiler.errors import InvalidInput, Location


def load_spark_config(path: str | Path) -> dict[str, str]:
    """The ``spark.config`` map of an env.json (empty when it has none)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidInput("FILE_NOT_FOUND", f"cannot read {path}: {error.strerror}", None, str(path)) from None
    except json.JSONDecodeError as error:
        raise InvalidInput("BAD_CONFIG", f"not valid JSON: {error.msg}",
                           Location(str(path), error.lineno, error.colno)) from None
    spark = data.get("spark") if isinstance(data, dict) else None
    config = (spark or {}).get("config") if isinstance(spark, dict) else None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise InvalidInput("BAD_CONFIG", "spark.config of an env.json is a map of settings",
                           Location(str(path)), None, '"spark": {"config": {"spark.sql.shuffle.partitions": "8"}}')
    return {str(key): str(value).lower() if isinstance(value, bool) else str(value)
            for key, value in config.items()}
