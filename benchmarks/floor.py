"""The floor: the suite's metrics hand-written as one DuckDB statement and as one PySpark plan.

What an engineer who knows the data would write by hand: one pass computes every row-level
count, sum and percentile with ``FILTER``; one ``GROUP BY`` per key set (uniqueness, distinctness,
histogram, grouped profiles; DuckDB runs separate group-bys faster than ``GROUPING SETS``); one anti join per
accuracy rule; one join for uniqueness against the copy. The result is reshaped into the same
metrics gryph reports, and the runner checks that they agree.
"""

from __future__ import annotations

from fractions import Fraction

LATENCY = "(epoch_ms(shipped_ts) - epoch_ms(created_ts))"
VALID = "created_ts IS NOT NULL AND shipped_ts IS NOT NULL"
HOUR = 3_600_000

# The row-level metrics of one pass over events: name -> aggregate.
SCAN = {
    "total": "count(*)",
    "inc_email": "count(*) FILTER (WHERE email IS NULL)",
    "inc_contact": "count(*) FILTER (WHERE email IS NULL OR country IS NULL OR name IS NULL)",
    "inc_account": "count(*) FILTER (WHERE account_id IS NULL)",
    "inc_times": "count(*) FILTER (WHERE created_ts IS NULL OR shipped_ts IS NULL)",
    "lat_total": f"count(*) FILTER (WHERE {VALID})",
    "lat_sum": f"sum({LATENCY}) FILTER (WHERE {VALID})",
    "late": f"count(*) FILTER (WHERE {VALID} AND {LATENCY} > {3 * HOUR})",
    "pct": f"quantile_disc({LATENCY}, [0.5, 0.9, 0.99]) FILTER (WHERE {VALID})",
    "amounts": "count(amount)",
    "min_amount": "min(amount)",
    "max_amount": "max(amount)",
    "avg_score": "avg(score)",
    "quantity": "sum(quantity)",
    "empty_emails": "count(*) FILTER (WHERE email = '')",
    "nan_amounts": "count(*) FILTER (WHERE isnan(amount))",
    "sd_score": "stddev_samp(score)",
    "first_event": "min(created_ts)",
    "last_shipped": "max(shipped_ts)",
}
# The part of the scan the peer's checks need (suite_peer.dq).
PEER_SCAN = (
    "total",
    "inc_email",
    "inc_contact",
    "inc_account",
    "inc_times",
    "lat_total",
    "lat_sum",
    "pct",
    "min_amount",
    "max_amount",
    "avg_score",
    "quantity",
    "sd_score",
)


def _scan_sql(names) -> str:
    return "SELECT " + ", ".join(f"{SCAN[name]} AS {name}" for name in names) + " FROM events"


FLOOR_SQL = f"""
WITH
scan AS ({_scan_sql(SCAN)}),
ids AS MATERIALIZED (SELECT id, count(*) AS n FROM events GROUP BY id),
id_stats AS (
  SELECT count(*) AS id_groups, count(*) FILTER (WHERE n = 1) AS id_unique,
         (SELECT list({{'dup': dup, 'num': num}} ORDER BY dup)
          FROM (SELECT n - 1 AS dup, count(*) AS num FROM ids WHERE n > 1 GROUP BY n)) AS id_dups
  FROM ids
),
uc AS (SELECT count(*) FILTER (WHERE n = 1) AS uc_unique
       FROM (SELECT count(*) AS n FROM events GROUP BY user_id, country)),
us AS (SELECT count(*) AS us_groups FROM (SELECT 1 FROM events GROUP BY user_id, status)),
countries AS MATERIALIZED (SELECT country, count(*) AS cnt, avg(score) AS avg_score FROM events GROUP BY country),
country_stats AS (
  SELECT count(*) AS country_groups,
         list({{'country': country, 'cnt': cnt, 'avg_score': avg_score}}
              ORDER BY cnt DESC, country ASC NULLS FIRST)[1:10] AS by_country
  FROM countries
),
statuses AS (
  SELECT list({{'status': status, 'cnt': cnt, 'quantity': quantity}} ORDER BY status ASC NULLS FIRST) AS by_status
  FROM (SELECT status, count(*) AS cnt, sum(quantity) AS quantity FROM events GROUP BY status)
),
steps AS (
  SELECT list({{'step': step, 'count': n}} ORDER BY step) AS steps
  FROM (SELECT trunc({LATENCY} / {HOUR})::BIGINT AS step, count(*) AS n FROM events WHERE {VALID} GROUP BY 1)
),
copy_email AS (
  SELECT count(*) AS miss_email FROM events e ANTI JOIN events_copy c
    ON c.id IS NOT DISTINCT FROM e.id AND coalesce(c.email, '') = coalesce(e.email, '')
  WHERE NOT (e.id IS NULL AND e.email IS NULL)
),
copy_name AS (
  SELECT count(*) AS miss_name FROM events e ANTI JOIN events_copy c
    ON c.id IS NOT DISTINCT FROM e.id AND coalesce(c.name, '') = coalesce(e.name, '')
       AND coalesce(c.country, '') = coalesce(e.country, '')
  WHERE NOT (e.id IS NULL AND e.name IS NULL AND e.country IS NULL)
),
in_copy AS (
  SELECT count(*) FILTER (WHERE coalesce(t.n, 0) <= 1) AS unique_ids
  FROM (SELECT DISTINCT id FROM events) s
  LEFT JOIN (SELECT id, count(*) AS n FROM events_copy GROUP BY id) t ON s.id IS NOT DISTINCT FROM t.id
)
SELECT *
FROM scan, id_stats, uc, us, country_stats, statuses, steps, copy_email, copy_name, in_copy
"""


# The peer's checks by hand: the scan's part they need and the two distinct counts.
PEER_FLOOR_SQL = f"""
WITH
scan AS ({_scan_sql(PEER_SCAN)}),
ids AS (SELECT count(*) AS id_groups FROM (SELECT id FROM events GROUP BY id)),
countries AS (SELECT count(*) AS country_groups FROM (SELECT country FROM events GROUP BY country))
SELECT * FROM scan, ids, countries
"""


def _accuracy(total: int, miss: int) -> dict:
    matched = total - miss
    return {"total": total, "miss": miss, "matched": matched, "matchedFraction": matched / total if total else 1.0}


def _complete(total: int, incomplete: int) -> dict:
    return {"total": total, "incomplete": incomplete, "complete": total - incomplete}


def _delivery(r: dict) -> dict:
    """Timeliness total, average and percentiles (no histogram)."""
    lat_total = r["lat_total"]
    # CAST(AVG(latency) AS BIGINT), exactly: integer division toward zero
    average = int(Fraction(int(r["lat_sum"]), lat_total)) if lat_total else None
    pct = list(r["pct"] or [None, None, None])
    return {
        "total": lat_total,
        "avg": average,
        "percentile_50": pct[0],
        "percentile_90": pct[1],
        "percentile_99": pct[2],
    }


def _completeness(r: dict) -> dict:
    total = r["total"]
    return {
        "email_present": _complete(total, r["inc_email"]),
        "contact": _complete(total, r["inc_contact"]),
        "account": _complete(total, r["inc_account"]),
        "times": _complete(total, r["inc_times"]),
    }


def metrics_from_row(r: dict) -> dict:
    """The suite's metrics, named as gryph names them, from the floor's one result row."""
    total = r["total"]
    delivery = _delivery(r)
    return {
        "copy_email": _accuracy(total, r["miss_email"]),
        "copy_name": _accuracy(total, r["miss_name"]),
        **_completeness(r),
        "id_unique": {"total": total, "unique": r["id_unique"], "dup": _dups(r["id_dups"])},
        "user_country": {"total": total, "unique": r["uc_unique"]},
        "id_in_copy": {"total": total, "unique": r["unique_ids"]},
        "id_distinct": {"total": total, "distinct": r["id_groups"], "dup": _dups(r["id_dups"])},
        "country_distinct": {"total": total, "distinct": r["country_groups"]},
        "user_status": {"total": total, "distinct": r["us_groups"]},
        "delivery": {
            "total": delivery["total"],
            "avg": delivery["avg"],
            "step": [dict(s) for s in r["steps"] or []],
            **{k: v for k, v in delivery.items() if k.startswith("percentile")},
        },
        "delivery_avg": {"total": delivery["total"], "avg": delivery["avg"]},
        "amount_stats": [
            {
                "rows": total,
                "amounts": r["amounts"],
                "min_amount": r["min_amount"],
                "max_amount": r["max_amount"],
                "avg_score": r["avg_score"],
                "quantity": r["quantity"],
            }
        ],
        "empty_strings": [{"empty_emails": r["empty_emails"]}],
        "nan_amounts": [{"nan_amounts": r["nan_amounts"]}],
        "score_spread": [
            {"sd_score": r["sd_score"], "first_event": r["first_event"], "last_shipped": r["last_shipped"]}
        ],
        "by_country": [dict(x) for x in (r["by_country"] or [])][:10],
        "by_status": [dict(x) for x in r["by_status"] or []],
    }


def peer_metrics_from_row(r: dict) -> dict:
    """The metrics of suite_peer.dq, named as gryph names them, from the peer floor's row."""
    total = r["total"]
    return {
        **_completeness(r),
        "id_distinct": {"total": total, "distinct": r["id_groups"]},
        "country_distinct": {"total": total, "distinct": r["country_groups"]},
        "delivery": _delivery(r),
        "amount_stats": [
            {
                "min_amount": r["min_amount"],
                "max_amount": r["max_amount"],
                "avg_score": r["avg_score"],
                "quantity": r["quantity"],
            }
        ],
        "score_spread": [{"sd_score": r["sd_score"]}],
    }


def _dups(rows) -> list[dict]:
    # one row per (dup, num) pair of the windowed list: keep distinct pairs
    seen, out = set(), []
    for row in rows or []:
        key = (row["dup"], row["num"])
        if key not in seen:
            seen.add(key)
            out.append({"dup": row["dup"], "num": row["num"]})
    return out


def run_duckdb(con, files: dict[str, str], peer: bool = False) -> dict:
    """Run the floor (``peer``: of the peer's checks) on DuckDB over the parquet files; returns the metrics."""
    from gryph.compiler.plan.result_values import normalize

    for name, path in files.items():
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    cursor = con.execute(PEER_FLOOR_SQL if peer else FLOOR_SQL)
    names = [d[0] for d in cursor.description]
    row = {n: normalize(v) for n, v in zip(names, cursor.fetchone(), strict=True)}
    return peer_metrics_from_row(row) if peer else metrics_from_row(row)


def run_spark(spark, files: dict[str, str]) -> dict:
    """The hand-written PySpark plan: the same metrics, each small result collected to the client.

    One aggregate over ``events`` for every row-level metric (the percentiles as one
    ``percentile_disc`` over an array of fractions), one group-by per key set reduced on the
    server to a histogram of counts, one anti join per accuracy rule and one join for
    uniqueness against the copy.
    """
    from pyspark.sql import functions as F

    from gryph.compiler.plan.result_values import normalize

    e, c = spark.read.parquet(files["events"]), spark.read.parquet(files["events_copy"])
    valid = F.col("created_ts").isNotNull() & F.col("shipped_ts").isNotNull()
    # unix_millis wants a zoned timestamp (Spark 4.2 refuses the files' zone-less ones), as gryph casts
    latency = F.unix_millis(F.col("shipped_ts").cast("timestamp")) - F.unix_millis(
        F.col("created_ts").cast("timestamp")
    )
    count_if = lambda cond: F.count(F.when(cond, 1))  # noqa: E731
    scan = e.select("*", F.when(valid, latency).alias("__lat")).agg(
        F.count(F.lit(1)).alias("total"),
        count_if(F.col("email").isNull()).alias("inc_email"),
        count_if(F.col("email").isNull() | F.col("country").isNull() | F.col("name").isNull()).alias("inc_contact"),
        count_if(F.col("account_id").isNull()).alias("inc_account"),
        count_if(~valid).alias("inc_times"),
        F.count("__lat").alias("lat_total"),
        F.sum("__lat").alias("lat_sum"),
        count_if(F.col("__lat") > 3 * HOUR).alias("late"),
        F.expr("percentile_disc(array(0.5, 0.9, 0.99)) WITHIN GROUP (ORDER BY __lat)").alias("pct"),
        F.count("amount").alias("amounts"),
        F.min("amount").alias("min_amount"),
        F.max("amount").alias("max_amount"),
        F.avg("score").alias("avg_score"),
        F.sum("quantity").alias("quantity"),
        count_if(F.col("email") == "").alias("empty_emails"),
        count_if(F.isnan("amount")).alias("nan_amounts"),
        F.stddev_samp("score").alias("sd_score"),
        F.min("created_ts").alias("first_event"),
        F.max("shipped_ts").alias("last_shipped"),
    )
    row = {k: normalize(v) for k, v in scan.collect()[0].asDict().items()}

    def histogram(*keys):
        """{count of a key: how many keys have it}, computed on the server."""
        counted = e.groupBy(*keys).count().groupBy("count").agg(F.count(F.lit(1)).alias("num"))
        return {r["count"]: r["num"] for r in counted.collect()}

    ids = histogram("id")
    row["id_groups"], row["id_unique"] = sum(ids.values()), ids.get(1, 0)
    row["id_dups"] = [{"dup": k - 1, "num": v} for k, v in sorted(ids.items()) if k > 1]
    row["uc_unique"] = histogram("user_id", "country").get(1, 0)
    row["us_groups"] = e.select("user_id", "status").distinct().count()
    countries = [
        r.asDict()
        for r in e.groupBy("country").agg(F.count(F.lit(1)).alias("cnt"), F.avg("score").alias("avg_score")).collect()
    ]
    row["country_groups"] = len(countries)
    row["by_country"] = sorted(countries, key=lambda r: (-r["cnt"], r["country"] is not None, r["country"] or ""))[:10]
    row["by_status"] = sorted(
        (
            r.asDict()
            for r in e.groupBy("status")
            .agg(F.count(F.lit(1)).alias("cnt"), F.sum("quantity").alias("quantity"))
            .collect()
        ),
        key=lambda r: (r["status"] is not None, r["status"] or ""),
    )
    row["steps"] = sorted(
        (
            r.asDict()
            for r in e.filter(valid)
            .groupBy(F.floor(latency / HOUR).cast("bigint").alias("step"))
            .agg(F.count(F.lit(1)).alias("count"))
            .collect()
        ),
        key=lambda r: r["step"],
    )
    t = c.select(*(F.col(n).alias(f"t_{n}") for n in ("id", "email", "name", "country")))
    same = lambda a: F.coalesce(F.col(a), F.lit("")) == F.coalesce(F.col(f"t_{a}"), F.lit(""))  # noqa: E731
    key = F.col("id").eqNullSafe(F.col("t_id"))
    row["miss_email"] = (
        e.join(t, key & same("email"), "left_anti").filter(~(F.col("id").isNull() & F.col("email").isNull())).count()
    )
    row["miss_name"] = (
        e.join(t, key & same("name") & same("country"), "left_anti")
        .filter(~(F.col("id").isNull() & F.col("name").isNull() & F.col("country").isNull()))
        .count()
    )
    target_counts = c.groupBy(F.col("id").alias("t_id")).count()
    row["unique_ids"] = (
        e.select("id")
        .distinct()
        .join(target_counts, key, "left")
        .filter(F.coalesce(F.col("count"), F.lit(0)) <= 1)
        .count()
    )
    return metrics_from_row({k: normalize(v) if not isinstance(v, list) else v for k, v in row.items()})
