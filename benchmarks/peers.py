"""The peer: cuallee (https://pypi.org/project/cuallee/) on DuckDB, on the checks it can express.

cuallee compiles a check into one SQL statement over one table (plus a row count). The checks
mirror ``suite_peer.dq``; where cuallee's notion differs from Griffin's it is said below, and
accuracy (two tables) has no cuallee equivalent at all.
"""

from __future__ import annotations

PEER = "cuallee"


def available() -> bool:
    try:
        import cuallee  # noqa: F401
    except ImportError:
        return False
    return True


def run_cuallee(con, files: dict[str, str]) -> dict:
    """Run the cuallee check on DuckDB; returns ``{rule: value}`` as cuallee reports them."""
    from cuallee import Check, CheckLevel

    # cuallee checks one table: latency is a column of a view over the source
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW events_peer AS SELECT *, "
        f"epoch_ms(shipped_ts) - epoch_ms(created_ts) AS latency "
        f"FROM read_parquet('{files['events']}')"
    )
    check = Check(CheckLevel.WARNING, "bench_peer", table_name="events_peer")
    check.is_complete("email")  # completeness email_present
    check.are_complete(["email", "country", "name"])  # contact (cuallee: share of non-NULL cells)
    check.is_complete("account_id")  # account
    check.are_complete(["created_ts", "shipped_ts"])  # times
    check.is_unique("id")  # id_distinct (COUNT DISTINCT)
    check.has_cardinality("country", 22)  # country_distinct (NULL not counted)
    for p in (0.5, 0.9, 0.99):  # delivery percentiles (cuallee: continuous)
        check.has_percentile("latency", 0.0, p)
    check.has_min("amount", 0.0)  # amount_stats
    check.has_max("amount", 0.0)
    check.has_mean("score", 0.5)
    check.has_sum("quantity", 0)
    check.has_std("score", 0.0)  # score_spread
    summary = check.validate(con)
    return {str(r["rule"]) + ":" + str(r["column"]): r["violations"] for r in summary.to_dict("records")}
