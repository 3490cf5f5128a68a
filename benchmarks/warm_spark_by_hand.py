"""examples/users.dq's metrics hand-written in PySpark Connect: the baseline of the warm Spark run.

What an engineer would write without gryph, in the style of ``floor.run_spark``: one aggregate
per source for its row-level metrics, one group-by per key set reduced on the server to a
histogram of counts, one anti join for the accuracy rule, each small result collected.
It imports no gryph module, so that its process pays only for PySpark.

    python -m benchmarks.warm_spark_by_hand sc://127.0.0.1:15002   # prints the metrics as JSON
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"
USERS = (
    "user_id bigint, first_name string, last_name string, address string, email string, phone string, post_code string"
)
ORDERS = "order_id bigint, user_id bigint, country string, created_ts timestamp, shipped_ts timestamp"
STEP_MS = 120_000  # timeliness: step.size = 2m


def metrics(spark) -> dict:
    """The suite's metrics, in the shape of gryph's ``metrics`` map."""
    from pyspark.sql.connect import functions as F

    users = spark.read.csv(str(DATA / "users.csv"), header=True, schema=USERS, escape='"')
    copy = spark.read.parquet(str(DATA / "users_copy.parquet"))
    orders = spark.read.json(str(DATA / "orders.jsonl"), schema=ORDERS)
    count_if = lambda cond: F.count(F.when(cond, 1))  # noqa: E731

    scan = users.agg(
        F.count(F.lit(1)).alias("total"),
        count_if(F.col("email").isNull() | F.col("post_code").isNull()).alias("incomplete"),
    ).first()
    # Griffin's accuracy: a source row misses when no target row matches it (NULL keys match
    # NULL, text compared with NULL as ''); rows whose compared columns are all NULL are left out
    target = copy.select(*(F.col(c).alias(f"t_{c}") for c in ("user_id", "first_name", "address")))
    text_same = lambda a, b: F.coalesce(a, F.lit("")) == F.coalesce(b, F.lit(""))  # noqa: E731
    on = (
        F.col("user_id").eqNullSafe(F.col("t_user_id"))
        & text_same(F.upper("first_name"), F.upper("t_first_name"))
        & text_same(F.col("address"), F.col("t_address"))
    )
    all_null = F.col("user_id").isNull() & F.col("first_name").isNull() & F.col("address").isNull()
    missed = users.join(target, on, "left_anti").filter(~all_null).count()

    def histogram(key: str) -> dict[int, int]:
        """{how often a value occurs: how many values occur that often} (NULL is a value)."""
        counted = users.groupBy(key).count().groupBy("count").agg(F.count(F.lit(1)).alias("num"))
        return {row["count"]: row["num"] for row in counted.collect()}

    def dups(counts: dict[int, int]) -> list[dict]:
        return [{"dup": n - 1, "num": keys} for n, keys in sorted(counts.items()) if n > 1]

    ids, names = histogram("user_id"), histogram("first_name")

    latency = F.unix_millis(F.col("shipped_ts").cast("timestamp")) - F.unix_millis(
        F.col("created_ts").cast("timestamp")
    )
    timed = orders.filter(F.col("created_ts").isNotNull() & F.col("shipped_ts").isNotNull()).select(
        latency.alias("latency")
    )
    late = timed.agg(
        F.count(F.lit(1)).alias("total"),
        F.sum("latency").alias("sum"),
        F.expr("percentile_disc(array(0.5, 0.95)) WITHIN GROUP (ORDER BY latency)").alias("pct"),
    ).first()
    steps = (
        timed.groupBy(F.floor(F.col("latency") / STEP_MS).cast("int").alias("step"))
        .agg(F.count(F.lit(1)).alias("count"))
        .orderBy("step")
        .collect()
    )
    buyers, first = F.count_distinct("user_id").alias("buyers"), F.min("created_ts").alias("first_order")
    ages = orders.agg(F.count(F.lit(1)).alias("orders"), buyers, first).first()
    countries = (
        orders.groupBy("country")
        .agg(F.count(F.lit(1)).alias("cnt"))
        .orderBy(F.desc("cnt"), F.asc_nulls_first("country"))
        .limit(5)
        .collect()
    )

    total = scan["total"]
    return {
        "users_match": {
            "total_count": total,
            "miss_count": missed,
            "matched": total - missed,
            "matchedFraction": (total - missed) / total if total else None,
        },
        "contact": {"total": total, "incomplete": scan["incomplete"], "complete": total - scan["incomplete"]},
        "ids": {"total": total, "unique": ids.get(1, 0), "dup": dups(ids)},
        "names": {"total": total, "distinct": sum(names.values()), "dup": dups(names)},
        "delivery": {
            "total": late["total"],
            "avg": late["sum"] // late["total"] if late["total"] else None,
            "step": [row.asDict() for row in steps],
            "percentile_50": late["pct"][0],
            "percentile_95": late["pct"][1],
        },
        "by_country": [row.asDict() for row in countries],
        "ages": [ages.asDict()],
    }


def main(url: str) -> None:
    from pyspark.sql.connect.session import SparkSession

    spark = SparkSession.builder.remote(url).create()
    try:
        spark.conf.set("spark.sql.session.timeZone", "UTC")  # the orders' times are UTC
        print(json.dumps(metrics(spark), default=str))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
