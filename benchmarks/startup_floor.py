"""The floor of a small run: examples/users.dq's metrics and record samples as plain DuckDB SQL.

    python benchmarks/startup_floor.py      # prints the metrics as JSON

What `gryph run examples/users.dq --no-history` computes, written by hand: import duckdb, read the
three sources, one statement per rule (and the 20-row samples a default run fetches). It is the
baseline of the small-run target in ``benchmarks/startup.py``, which also checks that its metrics
equal gryph's.
"""

import json
import sys
from pathlib import Path

import duckdb

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"

SOURCES = f"""
CREATE VIEW users AS SELECT * FROM read_csv('{DATA / "users.csv"}', header = true, columns = {{
    'user_id': 'BIGINT', 'first_name': 'VARCHAR', 'last_name': 'VARCHAR', 'address': 'VARCHAR',
    'email': 'VARCHAR', 'phone': 'VARCHAR', 'post_code': 'VARCHAR'}});
CREATE VIEW users2 AS SELECT * FROM read_parquet('{DATA / "users_copy.parquet"}');
CREATE VIEW orders AS SELECT * FROM read_json('{DATA / "orders.jsonl"}', format = 'newline_delimited', columns = {{
    'order_id': 'BIGINT', 'user_id': 'BIGINT', 'country': 'VARCHAR', 'created_ts': 'TIMESTAMP',
    'shipped_ts': 'TIMESTAMP'}});
CREATE VIEW latencies AS SELECT *, epoch_ms(shipped_ts) - epoch_ms(created_ts) AS latency
    FROM orders WHERE created_ts IS NOT NULL AND shipped_ts IS NOT NULL;
"""

# users rows without an equal row in users2 (names compared upper-cased, NULL equal to NULL)
MISSES = """
    SELECT * FROM users u WHERE NOT (u.user_id IS NULL AND u.first_name IS NULL AND u.address IS NULL)
    AND NOT EXISTS (SELECT 1 FROM users2 t WHERE u.user_id IS NOT DISTINCT FROM t.user_id
        AND coalesce(upper(u.first_name), '') = coalesce(upper(t.first_name), '')
        AND coalesce(u.address, '') = coalesce(t.address, ''))
"""


def rows(con, sql):
    cursor = con.execute(sql)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def duplicates(con, column):
    """Griffin's duplication array: how many values occur n+1 times, per n > 0."""
    return rows(
        con,
        f"SELECT n - 1 AS dup, count(*) AS num FROM (SELECT count(*) AS n FROM users GROUP BY {column}) "
        "WHERE n > 1 GROUP BY n ORDER BY n",
    )


def main() -> dict:
    con = duckdb.connect()
    con.execute(SOURCES)
    total_users = con.execute("SELECT count(*) FROM users").fetchone()[0]
    misses = con.execute(f"SELECT count(*) FROM ({MISSES})").fetchone()[0]
    incomplete = con.execute("SELECT count(*) FROM users WHERE email IS NULL OR post_code IS NULL").fetchone()[0]
    unique = con.execute(
        "SELECT count(*) FROM (SELECT user_id FROM users GROUP BY user_id HAVING count(*) = 1)"
    ).fetchone()[0]
    distinct = con.execute("SELECT count(*) FROM (SELECT first_name FROM users GROUP BY first_name)").fetchone()[0]
    total, latency_sum, p50, p95 = con.execute(
        "SELECT count(*), sum(latency), percentile_disc(0.5) WITHIN GROUP (ORDER BY latency), "
        "percentile_disc(0.95) WITHIN GROUP (ORDER BY latency) FROM latencies"
    ).fetchone()
    metrics = {
        "users_match": {
            "total_count": total_users,
            "miss_count": misses,
            "matched": total_users - misses,
            "matchedFraction": (total_users - misses) / total_users,
        },
        "contact": {"total": total_users, "incomplete": incomplete, "complete": total_users - incomplete},
        "ids": {"total": total_users, "unique": unique, "dup": duplicates(con, "user_id")},
        "names": {"total": total_users, "distinct": distinct, "dup": duplicates(con, "first_name")},
        "delivery": {
            "total": total,
            "avg": latency_sum // total,
            "step": rows(
                con, "SELECT latency // 120000 AS step, count(*) AS count FROM latencies GROUP BY 1 ORDER BY 1"
            ),
            "percentile_50": p50,
            "percentile_95": p95,
        },
        "by_country": rows(
            con,
            "SELECT country, count(*) AS cnt FROM orders GROUP BY country ORDER BY cnt DESC, country NULLS FIRST "
            "LIMIT 5",
        ),
        "ages": rows(
            con,
            "SELECT count(*) AS orders, count(DISTINCT user_id) AS buyers, "
            "strftime(min(created_ts), '%Y-%m-%d %H:%M:%S') AS first_order FROM orders",
        ),
    }
    # the record samples a default run fetches with its metrics
    rows(con, f"{MISSES} LIMIT 20")
    rows(con, "SELECT * FROM users WHERE email IS NULL OR post_code IS NULL LIMIT 20")
    rows(con, "SELECT user_id, count(*) - 1 AS dup FROM users GROUP BY user_id HAVING count(*) > 1 LIMIT 20")
    rows(con, "SELECT first_name, count(*) - 1 AS dup FROM users GROUP BY first_name HAVING count(*) > 1 LIMIT 20")
    rows(con, "SELECT * FROM latencies WHERE latency > 180000 LIMIT 20")
    return metrics


if __name__ == "__main__":
    json.dump(main(), sys.stdout, default=str)
