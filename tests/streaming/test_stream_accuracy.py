"""Accuracy in a stream, on both engines: misses are matched again in later batches inside the
retry window; a lower miss for an earlier batch time replaces its result (the first total kept);
misses older than the window are final. Every expected number is counted by hand below."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gryph.client.streaming.stream_runner import stream

SUITE = """suite orders_known
source orders = folder("incoming/", format = "json", schema = "id bigint, customer string", settle = "1ms")
source customers = csv("customers.csv")
accuracy known on orders, customers: orders.customer = customers.name with retry = {retry}, miss = "miss_count"
check "all known": metrics["known"]["miss_count"] == 0
"""


def _arrive(folder: Path, name: str, rows: list[dict], age_s: float) -> None:
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))


def _customers(folder: Path, *names: str) -> None:
    (folder / "customers.csv").write_text("name\n" + "".join(f"{n}\n" for n in names), encoding="utf-8")


def _one_batch(folder: Path, engine: str, remote: str | None) -> dict:
    (result,) = stream(
        folder / "suite.dq",
        "spark" if engine == "spark" else "duckdb",
        remote=remote,
        once=True,
        state=folder / "state.duckdb",
    )
    return result.to_dict()


@pytest.fixture(params=["duckdb", "spark"])
def engine(request) -> tuple[str, str | None]:
    remote = request.getfixturevalue("spark_remote") if request.param == "spark" else None
    return request.param, remote


def _metrics(total: int, miss: int) -> dict:
    matched = total - miss
    return {"total": total, "miss_count": miss, "matched": matched, "matchedFraction": matched / total}


def test_misses_are_matched_again_and_earlier_results_improve(tmp_path, engine):
    name, remote = engine
    (tmp_path / "incoming").mkdir()
    (tmp_path / "suite.dq").write_text(SUITE.format(retry="1h"), encoding="utf-8")
    _customers(tmp_path, "ann")
    # batch 1: ann matches; bob and cy do not (bob, cy pending)
    _arrive(
        tmp_path,
        "a.json",
        [{"id": 1, "customer": "ann"}, {"id": 2, "customer": "bob"}, {"id": 3, "customer": "cy"}],
        60,
    )
    first = _one_batch(tmp_path, name, remote)
    assert first["metrics"]["known"] == _metrics(3, 2)
    assert first["check"] == {"all known": False}
    assert "updates" not in first["stream"]
    # batch 2: bob arrives in the target; dee's order is new and unknown; cy is still unknown
    _customers(tmp_path, "ann", "bob")
    _arrive(tmp_path, "b.json", [{"id": 4, "customer": "dee"}], 40)
    second = _one_batch(tmp_path, name, remote)
    t1, t2 = first["stream"]["tmst"], second["stream"]["tmst"]
    assert second["metrics"]["known"] == _metrics(1, 1)
    assert second["stream"]["updates"] == {"known": {str(t1): _metrics(3, 1)}}
    # batch 3: everyone is known now; a NULL customer is never a miss (Griffin's rule)
    _customers(tmp_path, "ann", "bob", "cy", "dee")
    _arrive(tmp_path, "c.json", [{"id": 5, "customer": "ann"}, {"id": 6, "customer": None}], 20)
    third = _one_batch(tmp_path, name, remote)
    assert third["metrics"]["known"] == _metrics(2, 0)
    assert third["stream"]["updates"] == {"known": {str(t1): _metrics(3, 0), str(t2): _metrics(1, 0)}}
    assert third["check"] == {"all known": True}


def test_misses_older_than_the_window_are_final(tmp_path):
    (tmp_path / "incoming").mkdir()
    (tmp_path / "suite.dq").write_text(SUITE.format(retry="1ms"), encoding="utf-8")
    _customers(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "customer": "ann"}], 60)
    first = _one_batch(tmp_path, "duckdb", None)
    assert first["metrics"]["known"] == _metrics(1, 1)
    time.sleep(0.01)  # the next batch is more than the 1 ms window later
    _customers(tmp_path, "ann")
    _arrive(tmp_path, "b.json", [{"id": 2, "customer": "bob"}], 40)
    second = _one_batch(tmp_path, "duckdb", None)
    # ann's order is outside the window: not matched again, its batch keeps miss 1
    assert second["metrics"]["known"] == _metrics(1, 1)
    assert "updates" not in second["stream"]


def test_without_retry_each_batch_is_judged_alone(tmp_path):
    (tmp_path / "incoming").mkdir()
    suite = SUITE.format(retry="1h").replace(" with retry = 1h,", " with")
    (tmp_path / "suite.dq").write_text(suite, encoding="utf-8")
    _customers(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "customer": "ann"}], 60)
    assert _one_batch(tmp_path, "duckdb", None)["metrics"]["known"] == _metrics(1, 1)
    _customers(tmp_path, "ann")
    _arrive(tmp_path, "b.json", [{"id": 2, "customer": "bob"}], 40)
    second = _one_batch(tmp_path, "duckdb", None)
    assert second["metrics"]["known"] == _metrics(1, 1)
    assert "updates" not in second["stream"]
    assert not (tmp_path / "state.duckdb.pending").exists()  # nothing kept for retries


def test_a_retry_that_is_not_a_time_is_a_located_error(tmp_path):
    from gryph.client.cli.main import main

    (tmp_path / "incoming").mkdir()
    (tmp_path / "suite.dq").write_text(SUITE.format(retry='"soon"'), encoding="utf-8")
    _customers(tmp_path, "ann")
    assert main(["validate", str(tmp_path / "suite.dq")]) == 2


def test_a_streaming_target_is_matched_with_its_rows_inside_the_lookback(tmp_path, engine):
    name, remote = engine
    for folder in ("orders", "customers"):
        (tmp_path / folder).mkdir()
    (tmp_path / "suite.dq").write_text(
        'source orders = folder("orders/", format = "json", schema = "id bigint, customer string", settle = "1ms")\n'
        'source customers = folder("customers/", format = "json", schema = "name string", settle = "1ms")\n'
        "accuracy known on orders, customers: orders.customer = customers.name with retry = 1h, lookback = 1h\n",
        encoding="utf-8",
    )

    def arrive(folder: str, file: str, rows: list[dict], age_s: float) -> None:
        path = tmp_path / folder / file
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        os.utime(path, (time.time() - age_s,) * 2)

    arrive("customers", "1.json", [{"name": "ann"}], 60)
    arrive("orders", "1.json", [{"id": 1, "customer": "ann"}, {"id": 2, "customer": "bob"}], 60)
    first = _one_batch(tmp_path, name, remote)
    plain = {"total": 2, "miss": 1, "matched": 1, "matchedFraction": 0.5}  # bob is not a customer yet
    assert first["metrics"]["known"] == plain
    arrive("customers", "2.json", [{"name": "bob"}], 30)
    arrive("orders", "2.json", [{"id": 3, "customer": "ann"}], 30)
    second = _one_batch(tmp_path, name, remote)
    # ann came in the first batch's customers: found within the lookback; bob's retried order now matches
    assert second["metrics"]["known"] == {"total": 1, "miss": 0, "matched": 1, "matchedFraction": 1.0}
    t1 = first["stream"]["tmst"]
    assert second["stream"]["updates"] == {
        "known": {str(t1): {**plain, "miss": 0, "matched": 2, "matchedFraction": 1.0}}
    }
