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


def test_validity_by_segment(dq_engine):
    text = "validity sane on users by country: id <= 4 as early, phone is not null as has_phone\n"
    document = _run(text, dq_engine).to_dict()
    # early fails ids 5-9; has_phone fails ids 3, 4, 7 (NULL fails a condition); invalid: 3-9
    assert document["metrics"]["sane"] == {"total": 9, "valid": 2, "invalid": 7, "early": 5, "has_phone": 3}
    assert _by_segment(document, "sane") == {
        "FR": {"total": 3, "valid": 2, "invalid": 1, "early": 0, "has_phone": 1},  # row 3 lacks a phone
        None: {"total": 2, "valid": 0, "invalid": 2, "early": 1, "has_phone": 1},  # 4 no phone, 5 late id
        "": {"total": 2, "valid": 0, "invalid": 2, "early": 2, "has_phone": 1},  # 6, 7 late ids, 7 no phone
        "Ünïcode 東京": {"total": 1, "valid": 0, "invalid": 1, "early": 1, "has_phone": 0},
        "DE": {"total": 1, "valid": 0, "invalid": 1, "early": 1, "has_phone": 0},
    }


# latencies (finished - started, epoch ms): 1000, 3000, -, 500, 7, 0, -, -4, -3 (a NULL time: not counted)
ORDERS = {
    "columns": [["id", "int64"], ["started", "int64"], ["finished", "int64"], ["country", "string"]],
    "rows": [
        [1, 0, 1000, "FR"],
        [2, 0, 3000, "FR"],
        [3, 0, None, "FR"],
        [4, 100, 600, None],
        [5, 0, 7, None],
        [6, 10, 10, ""],
        [7, None, 5, ""],
        [8, 0, -4, "DE"],
        [9, 0, -3, "DE"],
    ],
}


def test_timeliness_by_segment(dq_engine):
    text = "timeliness lag on orders by country: started, finished with percentile.values = (0.5)\n"
    document = run(load_suite(text, {"orders": arrow_table(ORDERS)}), dq_engine).to_dict()
    # 7 latencies summing to 4500: avg 642 (642.86 truncated); the 4th of -4, -3, 0, 7, 500, 1000, 3000 is 7
    assert document["metrics"]["lag"] == {"total": 7, "avg": 642, "percentile_50": 7}
    part = document["segments"]["lag"]
    assert part["values"] == [
        {"segment": "FR", "metrics": {"total": 2, "avg": 2000, "percentile_50": 1000}},  # 3 rows, 2 timed
        {"segment": None, "metrics": {"total": 2, "avg": 253, "percentile_50": 7}},  # 507 / 2 truncated
        {"segment": "", "metrics": {"total": 1, "avg": 0, "percentile_50": 0}},  # row 7 has no start
        {"segment": "DE", "metrics": {"total": 2, "avg": -3, "percentile_50": -4}},  # -3.5 toward zero
    ]


# code: x four times (FR twice, NULL, DE), y twice (FR, ''), NULL twice (NULL, ''), '' once ('')
CODES = {
    "columns": [["id", "int64"], ["code", "string"], ["country", "string"]],
    "rows": [
        [1, "x", "FR"],
        [2, "x", "FR"],
        [3, "y", "FR"],
        [4, "x", None],
        [5, None, None],
        [6, "y", ""],
        [7, None, ""],
        [8, "", ""],
        [9, "x", "DE"],
    ],
}


def test_uniqueness_and_distinctness_by_segment(dq_engine):
    text = "uniqueness once on codes by country: code\ndistinctness kinds on codes by country: code\n"
    document = run(load_suite(text, {"codes": arrow_table(CODES)}), dq_engine).to_dict()
    # over all rows only '' occurs once; x, y, NULL and '' are the four values
    assert document["metrics"]["once"] == {"total": 9, "unique": 1}
    assert document["metrics"]["kinds"] == {"total": 9, "distinct": 4}
    # a value is counted within its segment: x is unique in NULL's and DE's, not in FR's
    # order: 3 rows ('' before FR: ties by value), then NULL's 2, then DE's 1
    assert document["segments"]["once"]["values"] == [
        {"segment": "", "metrics": {"total": 3, "unique": 3}},  # y, NULL and '' once each
        {"segment": "FR", "metrics": {"total": 3, "unique": 1}},  # x twice, y once
        {"segment": None, "metrics": {"total": 2, "unique": 2}},  # x, NULL
        {"segment": "DE", "metrics": {"total": 1, "unique": 1}},
    ]
    assert _by_segment(document, "kinds") == {
        "": {"total": 3, "distinct": 3},
        "FR": {"total": 3, "distinct": 2},
        None: {"total": 2, "distinct": 2},
        "DE": {"total": 1, "distinct": 1},
    }


def test_duplicates_by_segment_top_n(dq_engine):
    text = "distinctness kinds on codes by country top 1: code\n"
    part = run(load_suite(text, {"codes": arrow_table(CODES)}), dq_engine).to_dict()["segments"]["kinds"]
    assert (part["cap"], part["capped"], part["values"]) == (
        1,
        True,
        [{"segment": "", "metrics": {"total": 3, "distinct": 3}}],
    )


KNOWN = {"columns": [["email", "string"]], "rows": [["a@x"], ["c@x"]]}


def _accuracy(text: str, engine) -> dict:
    suite = load_suite(text, {"users": arrow_table(USERS), "known": arrow_table(KNOWN)})
    return run(suite, engine).to_dict()


def test_accuracy_by_a_source_column(dq_engine):
    document = _accuracy("accuracy known_emails on users, known by country: users.email = known.email\n", dq_engine)
    # misses: b@x (row 4, NULL) and d@x (row 8, Ü); a row whose email is NULL is never a miss (Griffin's)
    assert document["metrics"]["known_emails"] == {"total": 9, "miss": 2, "matched": 7, "matchedFraction": 7 / 9}
    assert document["segments"]["known_emails"]["values"] == [
        {"segment": "FR", "metrics": {"total": 3, "miss": 0, "matched": 3, "matchedFraction": 1.0}},
        {"segment": None, "metrics": {"total": 2, "miss": 1, "matched": 1, "matchedFraction": 0.5}},
        {"segment": "", "metrics": {"total": 2, "miss": 0, "matched": 2, "matchedFraction": 1.0}},
        {"segment": "DE", "metrics": {"total": 1, "miss": 0, "matched": 1, "matchedFraction": 1.0}},
        {"segment": "Ünïcode 東京", "metrics": {"total": 1, "miss": 1, "matched": 0, "matchedFraction": 0.0}},
    ]


def test_accuracy_by_a_column_splits_the_judged_rows_only(dq_engine):
    text = "accuracy known_emails on users, known by country top 2: users.email = known.email when users.id > 3\n"
    part = _accuracy(text, dq_engine)["segments"]["known_emails"]
    # judged: ids 4-9, so FR (ids 1-3) is no segment; NULL and '' have 2 judged rows each, NULL first
    assert (part["cap"], part["capped"]) == (2, True)
    assert part["values"] == [
        {"segment": None, "metrics": {"total": 2, "miss": 1, "matched": 1, "matchedFraction": 0.5}},
        {"segment": "", "metrics": {"total": 2, "miss": 0, "matched": 2, "matchedFraction": 1.0}},
    ]


# seen (epoch ms): FR 1000 and 5000, NULL 3000 and a NULL time, '' 9000, DE none (its time NULL)
SEEN = {
    "columns": [["seen", "int64"], ["country", "string"]],
    "rows": [[1000, "FR"], [5000, "FR"], [3000, None], [None, None], [9000, ""], [None, "DE"]],
}


def test_freshness_by_segment_checks_each_segment(dq_engine):
    text = "freshness seen on visits by country: seen with error = 6s\n"
    # the data time 1970-01-01T00:00:10Z is 10000 ms
    result = run(load_suite(text, {"visits": arrow_table(SEEN)}), dq_engine, data_time="1970-01-01T00:00:10Z")
    document = result.to_dict()
    assert document["metrics"]["seen"] == {"total": 4, "newest": 9000, "age_ms": 1000}
    # NULL and FR have 2 rows each (NULL first), '' and DE one
    assert document["segments"]["seen"]["values"] == [
        {"segment": None, "metrics": {"total": 1, "newest": 3000, "age_ms": 7000}},
        {"segment": "FR", "metrics": {"total": 2, "newest": 5000, "age_ms": 5000}},
        {"segment": "", "metrics": {"total": 1, "newest": 9000, "age_ms": 1000}},
        {"segment": "DE", "metrics": {"total": 0, "newest": None, "age_ms": None}},
    ]
    # the error age is checked per segment: NULL is 7 s old, DE has no time at all
    (check,) = [c for c in document["check_details"] if c["name"] == "freshness seen (error)"]
    assert check["status"] == "FAIL"
    assert [(s["segment"], s["status"]) for s in check["segments"]] == [
        (None, "FAIL"),
        ("FR", "PASS"),
        ("", "PASS"),
        ("DE", "FAIL"),
    ]


def test_profiling_by_segment(dq_engine):
    text = "profiling p on users by country: select count(*) as n, count(email) as emails, max(id) as last from users\n"
    document = _run(text, dq_engine).to_dict()
    assert document["metrics"]["p"] == [{"n": 9, "emails": 4, "last": 9}]
    # emails present in rows 1 (FR), 4 (NULL), 6 (''), 8 (Ü)
    assert _by_segment(document, "p") == {
        "FR": {"n": 3, "emails": 1, "last": 3},
        None: {"n": 2, "emails": 1, "last": 5},
        "": {"n": 2, "emails": 1, "last": 7},
        "Ünïcode 東京": {"n": 1, "emails": 1, "last": 8},
        "DE": {"n": 1, "emails": 0, "last": 9},
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


def test_a_distinct_count_over_all_rows_beside_segmented_rules(dq_engine):
    text = (
        'measure "reach": select count(distinct phone) as phones, count(*) - count(distinct email) as repeats '
        "from users\n"
        "completeness contact on users by country: email\n"
    )
    document = _run(text, dq_engine).to_dict()
    # phones (NULL not counted) 1 2 5 6 8 9; emails a b c d of 9 rows: 9 - 4 repeats
    assert document["measure"]["reach"] == {"phones": 6, "repeats": 5}
    assert "reach" not in document.get("measure_segments", {})
    assert _by_segment(document, "contact") == {
        "FR": {"total": 3, "incomplete": 2, "complete": 1},
        None: {"total": 2, "incomplete": 1, "complete": 1},
        "": {"total": 2, "incomplete": 1, "complete": 1},
        "Ünïcode 東京": {"total": 1, "incomplete": 0, "complete": 1},
        "DE": {"total": 1, "incomplete": 1, "complete": 0},
    }


def test_uniqueness_accuracy_and_completeness_by_one_column(dq_engine):
    text = (
        "uniqueness once on users by country: email\n"
        "accuracy known_emails on users, known by country: users.email = known.email\n"
        "completeness contact on users by country: email\n"
    )
    document = _accuracy(text, dq_engine)
    # emails a, b, c, d once each and NULL five times (rows 2, 3, 5, 7, 9): four unique
    assert document["metrics"]["once"] == {"total": 9, "unique": 4}
    assert document["metrics"]["known_emails"]["miss"] == 2  # b@x (row 4), d@x (row 8)
    # per segment NULL is a value like another: twice in FR's rows 2, 3, once in NULL's, ''s and DE's
    assert document["segments"]["once"]["values"] == [
        {"segment": "FR", "metrics": {"total": 3, "unique": 1}},  # a@x, NULL twice
        {"segment": None, "metrics": {"total": 2, "unique": 2}},  # b@x, NULL
        {"segment": "", "metrics": {"total": 2, "unique": 2}},  # c@x, NULL
        {"segment": "DE", "metrics": {"total": 1, "unique": 1}},  # NULL
        {"segment": "Ünïcode 東京", "metrics": {"total": 1, "unique": 1}},  # d@x
    ]
    assert {k: (v["total"], v["miss"]) for k, v in _by_segment(document, "known_emails").items()} == {
        "FR": (3, 0),
        None: (2, 1),
        "": (2, 0),
        "DE": (1, 0),
        "Ünïcode 東京": (1, 1),
    }
    assert _by_segment(document, "contact")["FR"] == {"total": 3, "incomplete": 2, "complete": 1}


def test_accuracy_top_n_keeps_the_segments_of_the_most_judged_rows_not_of_the_most_misses(dq_engine):
    text = "accuracy known_emails on users, known by country top 1: users.email = known.email\n"
    part = _accuracy(text, dq_engine)["segments"]["known_emails"]
    # FR has the most rows (3) and no miss; the misses are NULL's and Ü's
    assert (part["capped"], part["values"]) == (
        True,
        [{"segment": "FR", "metrics": {"total": 3, "miss": 0, "matched": 3, "matchedFraction": 1.0}}],
    )


def test_uniqueness_top_n_counts_the_kept_segments_values(dq_engine):
    text = "uniqueness once on codes by country top 2: code\n"
    part = run(load_suite(text, {"codes": arrow_table(CODES)}), dq_engine).to_dict()["segments"]["once"]
    # '' and FR have 3 rows each ('' first); FR's x twice leaves y; NULL's and DE's are left out
    assert (part["capped"], part["values"]) == (
        True,
        [
            {"segment": "", "metrics": {"total": 3, "unique": 3}},
            {"segment": "FR", "metrics": {"total": 3, "unique": 1}},
        ],
    )
