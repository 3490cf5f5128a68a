"""A folder with nothing new in a batch whose other folder has a file is read as no rows of its
declared columns, in the declared types, on DuckDB and on Spark alike: the empty frame the stream
builds holds no engine's types (empty_batches.py), the engine casts it to the declaration."""

from __future__ import annotations

import json
import os
import time

import pytest

from gryph.client.streaming.stream_runner import stream

SUITE = """suite twofold
source busy = folder("busy/", format = "json", schema = "id bigint, who string", settle = "1ms")
source quiet = folder("quiet/", format = "json", settle = "1ms",
                      schema = "n double, at timestamp, ok boolean, d date, amount decimal(10,2), `odd name` string")
profiling busy_rows on busy: count(*) as n
profiling quiet_rows on quiet: count(*) as n, sum(n) as total, max(at) as last, count(ok) as oks,
    min(d) as first_day, sum(amount) as money, count(`odd name`) as odd
"""


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_an_empty_folder_beside_a_busy_one_counts_zero_in_its_declared_types(engine, tmp_path, request):
    remote = request.getfixturevalue("spark_remote") if engine == "spark" else None
    for folder in ("busy", "quiet"):
        (tmp_path / folder).mkdir()
    (tmp_path / "twofold.dq").write_text(SUITE, encoding="utf-8")
    landed = tmp_path / "busy" / "1.json"
    landed.write_text(json.dumps({"id": 1, "who": "ä"}) + "\n", encoding="utf-8")
    os.utime(landed, (time.time() - 60,) * 2)

    (batch,) = stream(tmp_path / "twofold.dq", engine, remote=remote, once=True, state=tmp_path / "s.duckdb")

    assert batch.to_dict()["metrics"] == {
        "busy_rows": [{"n": 1}],
        "quiet_rows": [{"n": 0, "total": None, "last": None, "oks": 0, "first_day": None, "money": None, "odd": 0}],
    }
    assert batch.schemas["quiet"] == {
        "n": "double",
        "at": "timestamp",
        "ok": "boolean",
        "d": "date",
        "amount": "decimal(10, 2)",
        "odd name": "string",
        "__tmst": "integer",
    }
    assert batch.to_dict()["stream"]["sources"]["quiet"] == {"files": [], "rows": 0, "lag": 0}
