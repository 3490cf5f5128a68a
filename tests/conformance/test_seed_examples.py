"""The older Griffin design's two examples, verbatim in ``examples/``, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from gryph.client import load_suite, run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SEED_METRICS = {
    "seed_hive.dq": {
        # Example 1: user 4's email differs, user 5 is not in the target
        "users_match": {"total": 6, "miss": 2, "matched": 4, "matchedFraction": 4 / 6},
        # user 3's NULL phone matches '' (Griffin's =); user 6's duplicate target rows are one key
        "users_keyed": {
            "total": 6,
            "matched": 4,
            "miss": 1,
            "mismatch": 1,
            "invalid": 0,
            "mismatches": {
                "${source}['email'] === ${target}['email']": 1,
                "${source}['phone'] === ${target}['phone']": 0,
            },
        },
    },
    "seed_kafka.dq": {
        # Example 2: seeds a and e find a page 24h later with their URL (e: the first URL attribute's
        # first value) and crawl time; b's page is 1h later, c's crawl time differs, d's metadata is
        # broken JSON, and the fifth message is not JSON at all
        "seed_pages": {"total": 6, "miss": 4, "matched": 2, "matchedFraction": 2 / 6},
        # keyed by URL: b's page is inside the SLA (invalid), c and d mismatch on the crawl time,
        # the unreadable message has no URL and no page
        "seed_pages_keyed": {
            "total": 6,
            "matched": 2,
            "miss": 1,
            "mismatch": 2,
            "invalid": 1,
            "mismatches": {
                "$source.json().seeds.json().metadata.json().tracker.crawlRequestCreateTS === "
                "$target.json().groups[0].attrsList['name' = 'CRAWLMETADATA'].values[0].json().tracker."
                "crawlRequestCreateTS": 2
            },
        },
    },
}


@pytest.mark.parametrize("name", sorted(SEED_METRICS))
def test_seed_example(name, dq_engine):
    assert run(load_suite(str(EXAMPLES / name)), dq_engine).metrics == SEED_METRICS[name]
