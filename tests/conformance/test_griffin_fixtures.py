"""Apache Griffin's own test data (tests/data/griffin, copied from Apache Griffin), with the numbers derived by hand.

Both engines read the avro files themselves (the test Spark server loads spark-avro).

Derivations (from the list of differences in docs/griffin.md and the rows themselves):
- src and target have 50 rows each; they differ in 10039 (address), 10044 (first_name), and src's
  last two rows (10050,'Tom049',...,'249 DisneyCity') and (10050,'Tom0',...) against target's
  (10049,'Tom049',...) and (10050,'Tom050',...): 4 source rows without an identical target row.
  10042's NULL post_code is NULL on both sides, a match.
- src user_id: 10050 twice, 10049 absent -> 49 distinct values, 48 occurring once.
  src first_name: 'Tom049' twice (10044 and the first 10050) -> 49 distinct.
- post_code: '94022' 49 times, NULL once (10042).
- timeliness_data: latencies end_ts - ts = 60000, 80000, 90000, 560000, 60000, 660000, 80000,
  660000, 70000, 440000 ms (sum 2760000).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gryph.client import run
from tests.support.comparison import same

DATA = Path(__file__).resolve().parents[1] / "data" / "griffin"

USERS = f"""
source src = avro("{DATA / "users_info_src.avro"}")
source tgt = avro("{DATA / "users_info_target.avro"}")
"""

CASES = {
    "accuracy_all_seven_columns": (
        USERS
        + """accuracy acc on src, tgt:
    src.user_id = tgt.user_id and src.first_name = tgt.first_name and src.last_name = tgt.last_name
    and src.address = tgt.address and src.email = tgt.email and src.phone = tgt.phone
    and src.post_code = tgt.post_code
    with miss = "miss_count", total = "total_count", matched = "matched_count"
""",
        {"acc": {"total_count": 50, "miss_count": 4, "matched_count": 46, "matchedFraction": 0.92}},
    ),
    "accuracy_on_user_id_only": (
        USERS + "accuracy acc on src, tgt: src.user_id = tgt.user_id\n",
        # every src user_id (10050 included, twice) exists in target
        {"acc": {"total": 50, "miss": 0, "matched": 50, "matchedFraction": 1.0}},
    ),
    "completeness_email_post_code": (
        USERS + "completeness c on src: email, post_code\n",
        {"c": {"total": 50, "incomplete": 1, "complete": 49}},
    ),
    "distinctness_user_id": (
        USERS + 'distinctness d on src: user_id with duplication.array = "dup"\n',
        {"d": {"total": 50, "distinct": 49, "dup": [{"dup": 1, "num": 1}]}},
    ),
    "distinctness_first_name": (
        USERS + "distinctness d on src: first_name\n",
        {"d": {"total": 50, "distinct": 49}},
    ),
    "uniqueness_user_id_in_src": (
        USERS + 'uniqueness u on src: user_id with duplication.array = "dup"\n',
        {"u": {"total": 50, "unique": 48, "dup": [{"dup": 1, "num": 1}]}},
    ),
    "uniqueness_user_id_against_target": (
        USERS + 'uniqueness u on src, tgt: user_id with duplication.array = "dup"\n',
        # the 49 distinct src values each occur once in target
        {"u": {"total": 50, "unique": 49, "dup": []}},
    ),
    "profiling_post_code": (
        USERS + "profiling p on src: select post_code, count(*) as cnt group by post_code "
        "order by cnt desc limit 1\n"
        "profiling ids on src: user_id.max() as max, user_id.min() as min, count(*) as cnt, "
        "count(distinct user_id) as ids\n",
        {"p": [{"post_code": "94022", "cnt": 49}], "ids": [{"max": 10050, "min": 10001, "cnt": 50, "ids": 49}]},
    ),
    "timeliness_ts_end_ts": (
        f'source t = avro("{DATA / "timeliness_data.avro"}")\n'
        "timeliness lat on t: ts, end_ts with threshold = 3m, step.size = 2m, "
        "percentile.values = (0.2, 0.5, 0.9, 0.95)\n",
        {
            "lat": {
                "total": 10,
                "avg": 276000,
                # trunc(lat / 120000): six at 0, 440000 -> 3, 560000 -> 4, 660000 x2 -> 5
                "step": [
                    {"step": 0, "count": 6},
                    {"step": 3, "count": 1},
                    {"step": 4, "count": 1},
                    {"step": 5, "count": 2},
                ],
                # sorted 60000 60000 70000 80000 80000 90000 440000 560000 660000 660000
                "percentile_20": 60000,
                "percentile_50": 80000,
                "percentile_90": 660000,
                "percentile_95": 660000,
            }
        },
    ),
}

LATE = 4  # latencies above 3m = 180000: 560000, 660000, 660000, 440000


@pytest.mark.parametrize("name", sorted(CASES))
def test_griffin_fixture(name, dq_engine):
    text, expected = CASES[name]
    result = run(text, dq_engine)
    assert set(result.metrics) == set(expected)
    for rule, metrics in expected.items():
        same(result.metrics[rule], metrics, f"metrics.{rule}")
    if name == "timeliness_ts_end_ts":
        assert result.records["lat"]["count"] == LATE
    if name == "accuracy_all_seven_columns":
        misses = sorted((r["user_id"], r["first_name"]) for r in result.records["acc"]["sample"])
        assert misses == [(10039, "Tom039"), (10044, "Tom049"), (10050, "Tom0"), (10050, "Tom049")]
