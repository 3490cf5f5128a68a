"""The suite as Apache Griffin runs it: its DSL translated into SQL steps, one query per step.

The steps follow the Griffin DSL guide's "translation to SQL" (seeds/002): accuracy in four
steps, completeness in three, distinctness in three (seven with a duplication array),
uniqueness and timeliness as Griffin's step builders write them, profiling as one statement.
Each step is saved as a table under its own name, as Griffin does: a DuckDB temporary table,
or a Spark temporary view whose metric tables are collected at the end (Griffin's default,
without ``cache``). Metrics are reshaped as gryph names them so the runner can compare them.

Two deliberate departures, so that every system computes the same numbers: percentiles are
exact (Griffin uses ``percentile_approx``), and joins on keys use ``IS NOT DISTINCT FROM``
(NULL keys group together, as gryph's contract says).
"""

from __future__ import annotations

from dataclasses import dataclass

HOUR = 3_600_000

DIALECT = {
    "duckdb": {
        "ms": "epoch_ms({})",
        "avg_int": "CAST(trunc(AVG({})) AS BIGINT)",
        "percentiles": "quantile_disc({col}, [{ps}])",
    },
    "spark": {
        "ms": "unix_millis(CAST({} AS TIMESTAMP))",  # a zoned timestamp, as unix_millis wants
        "avg_int": "CAST(AVG({}) AS BIGINT)",
        "percentiles": "array({items})",
    },
}


@dataclass
class Step:
    name: str
    sql: str


def _accuracy(rule: str, source: str, target: str, pairs: list[tuple[str, str]]) -> list[Step]:
    on = " AND ".join(
        f"coalesce({source}.{a}, '') = coalesce({target}.{b}, '')"
        if a != "id"
        else f"{source}.{a} IS NOT DISTINCT FROM {target}.{b}"
        for a, b in pairs
    )
    not_all_null = " AND ".join(f"{source}.{a} IS NULL" for a, _ in pairs)
    target_null = " AND ".join(f"{target}.{b} IS NULL" for _, b in pairs)
    return [
        Step(
            f"{rule}_miss_items",
            f"SELECT {source}.* FROM {source} LEFT JOIN {target} ON {on} "
            f"WHERE (NOT ({not_all_null})) AND ({target_null})",
        ),
        Step(f"{rule}_miss_count", f"SELECT COUNT(*) AS miss FROM {rule}_miss_items"),
        Step(f"{rule}_total_count", f"SELECT COUNT(*) AS total FROM {source}"),
        Step(
            f"{rule}",
            f"SELECT {rule}_miss_count.miss AS miss, {rule}_total_count.total AS total, "
            f"({rule}_total_count.total - {rule}_miss_count.miss) AS matched "
            f"FROM {rule}_miss_count FULL JOIN {rule}_total_count ON TRUE",
        ),
    ]


def _completeness(rule: str, source: str, columns: list[str]) -> list[Step]:
    present = " AND ".join(f"{c} IS NOT NULL" for c in columns)
    return [
        Step(f"{rule}_total_count", f"SELECT COUNT(*) AS total FROM {source}"),
        Step(f"{rule}_incomplete_count", f"SELECT COUNT(*) AS incomplete FROM {source} WHERE NOT ({present})"),
        Step(
            f"{rule}",
            f"SELECT t.total AS total, i.incomplete AS incomplete, (t.total - i.incomplete) AS complete "
            f"FROM {rule}_total_count t CROSS JOIN {rule}_incomplete_count i",
        ),
    ]


def _distinctness(rule: str, source: str, columns: list[str], dup_array: bool) -> list[Step]:
    cols = ", ".join(columns)
    on = " AND ".join(f"{source}.{c} IS NOT DISTINCT FROM d.{c}" for c in columns)
    steps = [
        Step(f"{rule}_total_count", f"SELECT COUNT(*) AS total FROM {source}"),
        Step(f"{rule}_dup_count", f"SELECT {cols}, (COUNT(*) - 1) AS dup, TRUE AS dist FROM {source} GROUP BY {cols}"),
        Step(f"{rule}", f"SELECT COUNT(*) AS dist_count FROM {rule}_dup_count WHERE dist"),
    ]
    if dup_array:
        steps += [
            Step(
                f"{rule}_dist_joined",
                f"SELECT {source}.*, d.dup AS dup, d.dist AS dist FROM {source} LEFT JOIN {rule}_dup_count d ON {on}",
            ),
            Step(
                f"{rule}_row_numbered",
                f"SELECT *, ROW_NUMBER() OVER (PARTITION BY {cols} ORDER BY dist) AS row_num FROM {rule}_dist_joined",
            ),
            Step(f"{rule}_dup_records", f"SELECT {cols}, dup FROM {rule}_row_numbered WHERE NOT dist OR row_num > 1"),
            Step(
                f"{rule}_dup_items", f"SELECT {cols}, dup, COUNT(*) AS cnt FROM {rule}_dup_records GROUP BY {cols}, dup"
            ),
            Step(f"{rule}_dup_metric", f"SELECT dup, COUNT(*) AS num FROM {rule}_dup_items GROUP BY dup"),
        ]
    return steps


def _uniqueness(rule: str, source: str, target: str, columns: list[str], dup_array: bool) -> list[Step]:
    cols = ", ".join(columns)
    on = " AND ".join(f"s.{c} IS NOT DISTINCT FROM t.{c}" for c in columns)
    steps = [
        Step(f"{rule}_total_count", f"SELECT COUNT(*) AS total FROM {source}"),
        Step(f"{rule}_source_distinct", f"SELECT DISTINCT {cols} FROM {source}"),
        Step(
            f"{rule}_joined",
            f"SELECT {', '.join(f's.{c} AS {c}' for c in columns)}, t.{columns[0]} AS __t "
            f"FROM {rule}_source_distinct s LEFT JOIN {target} t ON {on}",
        ),
        Step(f"{rule}_grouped", f"SELECT {cols}, (COUNT(__t) - 1) AS dup FROM {rule}_joined GROUP BY {cols}"),
        Step(f"{rule}", f"SELECT COUNT(*) AS uniq FROM {rule}_grouped WHERE dup <= 0"),
    ]
    if dup_array:
        steps += [
            Step(f"{rule}_dup_record", f"SELECT * FROM {rule}_grouped WHERE dup > 0"),
            Step(f"{rule}_dup_metric", f"SELECT dup, COUNT(*) AS num FROM {rule}_dup_record GROUP BY dup"),
        ]
    return steps


def _timeliness(
    rule: str,
    source: str,
    begin: str,
    end: str,
    dialect: str,
    threshold: int | None = None,
    step: int | None = None,
    percentiles: tuple[float, ...] = (),
) -> list[Step]:
    d = DIALECT[dialect]
    steps = [
        Step(
            f"{rule}_origin_time",
            f"SELECT *, {d['ms'].format(begin)} AS _bts, {d['ms'].format(end)} AS _ets "
            f"FROM {source} WHERE {begin} IS NOT NULL AND {end} IS NOT NULL",
        ),
        Step(f"{rule}_lat", f"SELECT *, (_ets - _bts) AS latency FROM {rule}_origin_time"),
        Step(f"{rule}", f"SELECT COUNT(*) AS total, {d['avg_int'].format('latency')} AS avg FROM {rule}_lat"),
    ]
    if threshold is not None:
        steps.append(Step(f"{rule}_late", f"SELECT * FROM {rule}_lat WHERE latency > {threshold}"))
        steps.append(Step(f"{rule}_late_count", f"SELECT COUNT(*) AS late FROM {rule}_late"))
    if step is not None:
        steps.append(
            Step(
                f"{rule}_step",
                f"SELECT CAST(floor(latency / {step}) AS BIGINT) AS step, COUNT(*) AS count FROM {rule}_lat GROUP BY 1",
            )
        )
    if percentiles:
        ps = ", ".join(str(p) for p in percentiles)
        items = ", ".join(f"percentile_disc({p}) WITHIN GROUP (ORDER BY latency)" for p in percentiles)
        steps.append(
            Step(
                f"{rule}_percentile",
                f"SELECT {d['percentiles'].format(col='latency', ps=ps, items=items)} AS pct FROM {rule}_lat",
            )
        )
    return steps


PROFILES = {
    "amount_stats": "SELECT count(*) AS rows, count(amount) AS amounts, min(amount) AS min_amount, "
    "max(amount) AS max_amount, avg(score) AS avg_score, sum(quantity) AS quantity FROM events",
    "empty_strings": "SELECT count(*) AS empty_emails FROM events WHERE email = ''",
    "nan_amounts": "SELECT count(*) AS nan_amounts FROM events WHERE isnan(amount)",
    "score_spread": "SELECT stddev(score) AS sd_score, min(created_ts) AS first_event, "
    "max(shipped_ts) AS last_shipped FROM events",
    "by_country": "SELECT country, count(*) AS cnt, avg(score) AS avg_score FROM events GROUP BY country "
    "ORDER BY cnt DESC, country ASC NULLS FIRST LIMIT 10",
    "by_status": "SELECT status, count(*) AS cnt, sum(quantity) AS quantity FROM events GROUP BY status "
    "ORDER BY status ASC NULLS FIRST",
}


def steps(dialect: str) -> list[Step]:
    """Every step of the suite, in order."""
    out: list[Step] = []
    out += _accuracy("copy_email", "events", "events_copy", [("id", "id"), ("email", "email")])
    out += _accuracy("copy_name", "events", "events_copy", [("id", "id"), ("name", "name"), ("country", "country")])
    out += _completeness("email_present", "events", ["email"])
    out += _completeness("contact", "events", ["email", "country", "name"])
    out += _completeness("account", "events", ["account_id"])
    out += _completeness("times", "events", ["created_ts", "shipped_ts"])
    out += _uniqueness("id_unique", "events", "events", ["id"], True)
    out += _uniqueness("user_country", "events", "events", ["user_id", "country"], False)
    out += _uniqueness("id_in_copy", "events", "events_copy", ["id"], False)
    out += _distinctness("id_distinct", "events", ["id"], True)
    out += _distinctness("country_distinct", "events", ["country"], False)
    out += _distinctness("user_status", "events", ["user_id", "status"], False)
    out += _timeliness(
        "delivery",
        "events",
        "created_ts",
        "shipped_ts",
        dialect,
        threshold=3 * HOUR,
        step=HOUR,
        percentiles=(0.5, 0.9, 0.99),
    )
    out += _timeliness("delivery_avg", "events", "created_ts", "shipped_ts", dialect)
    out += [Step(name, sql) for name, sql in PROFILES.items()]
    return out


def metrics(fetch) -> dict:
    """The suite's metrics from the saved step tables; ``fetch(table)`` returns its rows as dicts."""
    one = lambda table: fetch(table)[0]  # noqa: E731

    def accuracy(rule):
        row = one(rule)
        total, miss = row["total"], row["miss"]
        return {
            "total": total,
            "miss": miss,
            "matched": row["matched"],
            "matchedFraction": (total - miss) / total if total else 1.0,
        }

    def dups(table):
        return sorted(({"dup": r["dup"], "num": r["num"]} for r in fetch(table)), key=lambda r: r["dup"])

    out = {"copy_email": accuracy("copy_email"), "copy_name": accuracy("copy_name")}
    for rule in ("email_present", "contact", "account", "times"):
        out[rule] = dict(one(rule))
    for rule in ("id_unique", "user_country", "id_in_copy"):
        out[rule] = {"total": one(f"{rule}_total_count")["total"], "unique": one(rule)["uniq"]}
    out["id_unique"]["dup"] = dups("id_unique_dup_metric")
    for rule in ("id_distinct", "country_distinct", "user_status"):
        out[rule] = {"total": one(f"{rule}_total_count")["total"], "distinct": one(rule)["dist_count"]}
    out["id_distinct"]["dup"] = dups("id_distinct_dup_metric")
    delivery = one("delivery")
    pct = list(one("delivery_percentile")["pct"])
    out["delivery"] = {
        "total": delivery["total"],
        "avg": delivery["avg"],
        "step": sorted((dict(r) for r in fetch("delivery_step")), key=lambda r: r["step"]),
        "percentile_50": pct[0],
        "percentile_90": pct[1],
        "percentile_99": pct[2],
    }
    fetch("delivery_late_count")
    out["delivery_avg"] = dict(one("delivery_avg"))
    for name in PROFILES:
        out[name] = [dict(r) for r in fetch(name)]
    return out


def run_duckdb(con, files: dict[str, str]) -> dict:
    """Every step as a DuckDB temporary table, one statement each; returns the metrics."""
    from gryph.compiler.plan.result_values import normalize

    for name, path in files.items():
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    made = []
    try:
        for step in steps("duckdb"):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {step.name} AS {step.sql}")
            made.append(step.name)

        def fetch(table):
            cursor = con.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            return [{n: normalize(v) for n, v in zip(names, row, strict=True)} for row in cursor.fetchall()]

        return metrics(fetch)
    finally:
        for name in made:
            con.execute(f"DROP TABLE IF EXISTS {name}")


# Tables Griffin writes out as metrics (and the late records it counts); the rest are steps.
OUTPUTS = (
    "copy_email",
    "copy_name",
    "email_present",
    "contact",
    "account",
    "times",
    "id_unique",
    "id_unique_total_count",
    "id_unique_dup_metric",
    "user_country",
    "user_country_total_count",
    "id_in_copy",
    "id_in_copy_total_count",
    "id_distinct",
    "id_distinct_total_count",
    "id_distinct_dup_metric",
    "country_distinct",
    "country_distinct_total_count",
    "user_status",
    "user_status_total_count",
    "delivery",
    "delivery_percentile",
    "delivery_step",
    "delivery_late_count",
    "delivery_avg",
    *PROFILES,
)


def run_spark(spark, files: dict[str, str]) -> dict:
    """Every step as a Spark temporary view; the metric tables are collected (one job each, or more)."""
    from gryph.compiler.plan.result_values import normalize

    for name, path in files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    made = []
    try:
        for step in steps("spark"):
            spark.sql(step.sql).createOrReplaceTempView(step.name)
            made.append(step.name)
        cache: dict[str, list[dict]] = {}

        def fetch(table):
            if table not in cache:
                df = spark.table(table)
                cache[table] = [{n: normalize(v) for n, v in row.asDict().items()} for row in df.collect()]
            return cache[table]

        return metrics(fetch)
    finally:
        for name in made:
            spark.catalog.dropTempView(name)
