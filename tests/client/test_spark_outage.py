"""The run's retry budget for a Spark Connect server that stopped answering (no server needed:
the policy's decisions are a function of the failures it sees and when)."""

from __future__ import annotations

import grpc
import pytest

from gryph.client.spark.session import outage
from gryph.client.spark.session.connect import retry_seconds
from gryph.compiler.errors import EngineError


class Unavailable(grpc.RpcError):
    """What gRPC raises when nothing answers at the server's address."""

    def code(self):
        return grpc.StatusCode.UNAVAILABLE


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(outage.time, "monotonic", clock)
    return clock


def test_requests_share_one_outage(clock):
    budget = outage.OutageBudget(10)
    assert budget.can_retry(Unavailable())  # request 1 fails at t=0
    clock.now += 4
    assert budget.can_retry(Unavailable())  # request 1 again, t=4
    clock.now += 4
    assert budget.can_retry(Unavailable())  # request 2, still the same outage, t=8
    clock.now += 3
    assert not budget.can_retry(Unavailable())  # t=11: the outage is older than 10 s, for anyone


def test_an_outage_after_a_quiet_spell_gets_the_whole_budget(clock):
    budget = outage.OutageBudget(10)
    assert budget.can_retry(Unavailable())
    clock.now += 9
    assert budget.can_retry(Unavailable())
    clock.now += 60  # requests succeeded for a minute: this failure starts a new outage
    assert budget.can_retry(Unavailable())
    clock.now += 9
    assert budget.can_retry(Unavailable())


def test_errors_of_the_query_itself_are_never_retried(clock):
    budget = outage.OutageBudget(10)
    assert not budget.can_retry(ValueError("not a transport failure"))


def test_zero_seconds_gives_up_at_the_first_failure(clock):
    assert not outage.OutageBudget(0).can_retry(Unavailable())


@pytest.mark.parametrize("text, seconds", [("", 30.0), ("5", 5.0), (" 0.5 ", 0.5), ("0", 0.0)])
def test_retry_seconds_from_the_environment(monkeypatch, text, seconds):
    monkeypatch.setenv("GRYPH_SPARK_RETRY_SECONDS", text)
    assert retry_seconds() == seconds


@pytest.mark.parametrize("text", ["soon", "-1", "nan", "inf", "1e9"])
def test_retry_seconds_that_are_not_a_duration_are_refused(monkeypatch, text):
    monkeypatch.setenv("GRYPH_SPARK_RETRY_SECONDS", text)
    with pytest.raises(EngineError) as error:
        retry_seconds()
    assert error.value.code == "SPARK_RETRY" and text in error.value.message
