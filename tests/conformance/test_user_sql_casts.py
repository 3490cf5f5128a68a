"""Casts in users' Spark SQL give NULL where the value does not convert (as Griffin's Spark 2 and 3
did), reading text by Spark 4's try_cast rules, identically on both engines."""

from __future__ import annotations

import json

from gryph.client import run

QUERY = """
select k,
       cast(v as int) as i, cast(v as bigint) as l, cast(v as double) as d,
       cast(v as date) as dt, cast(v as boolean) as b,
       cast(cast(v as double) as int) as truncated
from src order by k
"""


def test_casts_in_user_sql(dq_engine, tmp_path):
    rows = [
        ("1", "1.5"),
        ("2", " 12 "),
        ("3", '""'),
        ("4", ""),
        ("5", "2024-01-05"),
        ("6", "yes"),
        ("7", "-7.9"),
        ("8", "1e3"),
        ("9", "99999999999"),
    ]
    lines = "k,v\n" + "".join(f'{k},"{v.replace(chr(34), chr(34) * 2)}"\n' for k, v in rows)
    (tmp_path / "v.csv").write_text(lines, encoding="utf-8")
    job = {
        "name": "casts",
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {
                        "format": "csv",
                        "paths": ["v.csv"],
                        "options": {"header": "true", "inferSchema": "false"},
                    },
                },
            }
        ],
        "evaluate.rule": {
            "rules": [
                {
                    "dsl.type": "spark-sql",
                    "out.dataframe.name": "c",
                    "rule": QUERY,
                    "out": [{"type": "metric", "name": "c", "flatten": "array"}],
                }
            ]
        },
    }
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    result = run(str(tmp_path / "job.json"), dq_engine)
    got = {
        row["k"]: (row["i"], row["l"], row["d"], str(row["dt"]) if row["dt"] else None, row["b"], row["truncated"])
        for row in result.metrics["c"]
    }
    # (int, bigint, double, date, boolean, int of the double); integer text takes no fraction or
    # exponent; text is trimmed; '""' and '' read as nothing; a double to int truncates toward zero
    assert got == {
        "1": (None, None, 1.5, None, None, 1),
        "2": (12, 12, 12.0, None, None, 12),
        "3": (None, None, None, None, None, None),
        "4": (None, None, None, None, None, None),
        "5": (None, None, None, "2024-01-05", None, None),
        "6": (None, None, None, None, True, None),
        "7": (None, None, -7.9, None, None, -7),
        "8": (None, None, 1000.0, None, None, 1000),
        "9": (None, 99999999999, 99999999999.0, None, None, None),  # beyond INT: NULL, not wrapped
    }
