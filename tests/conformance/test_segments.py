"""Segmented rules (`by COLUMN`) on both engines: each segment's metrics from one grouped query,
NULL, empty-text and unicode segments kept apart, the cap and `top N`. Values derived by hand."""

from __future__ import annotations

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

# country: NULL twice, '' twice, 'FR' three times, 'Ünïcode 東京' once, 'DE' once
USERS = {
    "columns": [["id", "int64"], ["email", "string"], ["phone", "string"], ["country", "string"]],
    "rows": [
        [1, "a@x", "1", "FR"],
        [2, None, "2", "FR"],
        [3, None, None, "FR"],
        [4, "b@x", None, None],
        [5, None, "5", None],
        [6, "c@x", "6", ""],
        [7, None, None, ""],
        [8, "d@x", "8", "Ünïcode 東京"],
        [9, None, "9", "DE"],
    ],
}


def _run(text: str, engine):
    return run(load_suite(text, {"users": arrow_table(USERS)}), engine)


def _by_segment(document: dict, rule: str) -> dict:
    return {item["segment"]: item["metrics"] for item in document["segments"][rule]["values"]}


def test_completeness_by_segment(dq_engine):
    result = _run("completeness contact on users by country: email\n", dq_engine)
    document = result.to_dict()
    # the rule's own metrics stay those of all rows: emails NULL in rows 2, 3, 5, 7, 9
    assert document["metrics"]["contact"] == {"total": 9, "incomplete": 5, "complete": 4}
    part = document["segments"]["contact"]
    assert (part["column"], part["cap"], part["capped"]) == ("country", 1000, False)
    assert _by_segment(document, "contact") == {
        "FR": {"total": 3, "incomplete": 2, "complete": 1},  # rows 1-3: 2 and 3 lack an email
        None: {"total": 2, "incomplete": 1, "complete": 1},  # rows 4, 5: NULL is a segment of its own
        "": {"total": 2, "incomplete": 1, "complete": 1},  # rows 6, 7: '' is not NULL
        "Ünïcode 東京": {"total": 1, "incomplete": 0, "complete": 1},
        "DE": {"total": 1, "incomplete": 1, "complete": 0},
    }
    # the most rows first, ties by value with NULL first then by text: identical on both engines
    assert [item["segment"] for item in part["values"]] == ["FR", None, "", "DE", "Ünïcode 東京"]


def test_two_rules_by_one_column(dq_engine):
    text = "completeness contact on users by country: email\ncompleteness reach on users by country: phone\n"
    suite = load_suite(text, {"users": arrow_table(USERS)})
    result = run(suite, dq_engine)
    # phones NULL in rows 3, 4, 7: FR 1, NULL 1, '' 1, others 0
    assert {k: v["incomplete"] for k, v in _by_segment(result.to_dict(), "reach").items()} == {
        "FR": 1,
        None: 1,
        "": 1,
        "Ünïcode 東京": 0,
        "DE": 0,
    }
    assert _by_segment(result.to_dict(), "contact")["FR"]["incomplete"] == 2


def test_top_n_keeps_the_largest_segments_and_says_it_was_capped(dq_engine):
    document = _run("completeness contact on users by country top 2: email\n", dq_engine).to_dict()
    part = document["segments"]["contact"]
    assert (part["cap"], part["capped"]) == (2, True)  # five values, two kept
    # FR (3 rows), then the two of 2 rows ordered NULL first: NULL
    assert [item["segment"] for item in part["values"]] == ["FR", None]
    assert document["metrics"]["contact"]["total"] == 9  # the rule's metrics are still of every row


def test_exactly_cap_segments_is_not_capped(dq_engine):
    document = _run("completeness contact on users by country top 5: email\n", dq_engine).to_dict()
    assert document["segments"]["contact"]["capped"] is False
    assert len(document["segments"]["contact"]["values"]) == 5


def test_a_measure_by_segment_joins_the_grouped_query(dq_engine):
    text = (
        'measure "rows" by country: select count(*) as n, count(email) as emails from users where id > 1\n'
        "completeness contact on users by country: email\n"
    )
    document = _run(text, dq_engine).to_dict()
    # ids 2..9: FR rows 2, 3 (no email); NULL 4 (email), 5; '' 6 (email), 7; Ü 8 (email); DE 9
    assert document["measure"]["rows"] == {"n": 8, "emails": 3}
    part = document["measure_segments"]["rows"]
    assert {item["segment"]: item["metrics"] for item in part["values"]} == {
        "FR": {"n": 2, "emails": 0},
        None: {"n": 2, "emails": 1},
        "": {"n": 2, "emails": 1},
        "Ünïcode 東京": {"n": 1, "emails": 1},
        "DE": {"n": 1, "emails": 0},
    }


def test_percentiles_and_distinct_counts_over_all_rows_and_per_segment_in_one_read(dq_engine):
    text = (
        'measure "spread" by country: select percentile_approx(id, 0.5) as median, '
        "count(distinct phone) as phones from users\n"
        "completeness contact on users: email\n"
        'check "countries": drift(users.country)\n'
    )
    document = _run(text, dq_engine).to_dict()
    # the median is the value at rank ceil(n / 2): ids 1..9 -> 5; FR 1, 2, 3 -> 2; NULL 4, 5 -> 4;
    # '' 6, 7 -> 6. Phones (NULL not counted): all 1 2 5 6 8 9; FR 1, 2; NULL 5; '' 6; Ü 8; DE 9
    assert document["measure"]["spread"] == {"median": 5, "phones": 6}
    part = document["measure_segments"]["spread"]
    assert [(item["segment"], item["metrics"]) for item in part["values"]] == [
        ("FR", {"median": 2, "phones": 2}),
        (None, {"median": 4, "phones": 1}),
        ("", {"median": 6, "phones": 1}),
        ("DE", {"median": 9, "phones": 1}),
        ("Ünïcode 東京", {"median": 8, "phones": 1}),
    ]
    assert document["metrics"]["contact"]["incomplete"] == 5  # ids 2, 3, 5, 7, 9
    countries = document["measure"]["sketch(users.country)"]
    assert (countries["null"], countries["categories"]) == (2, [["FR", 3], ["", 2], ["DE", 1], ["Ünïcode 東京", 1]])
