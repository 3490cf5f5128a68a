"""A call bounded by a deadline whatever it waits on: run in a daemon thread of its own, its error
raised in the caller's thread, ``DeadlinePassed`` when the deadline comes first. A worker still
waiting then (on a host name resolver, which nothing can interrupt) is left to end alone."""

from __future__ import annotations

import threading
from collections.abc import Callable


class DeadlinePassed(Exception):
    """The call was still running at its deadline (not a ``TimeoutError``: a socket's own is one)."""


def within_deadline(seconds: float, call: Callable[[], None], name: str) -> None:
    """Run ``call`` in a daemon thread named ``name``, waiting for it at most ``seconds``."""
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as error:  # handed to the caller's thread, which reports it
            outcome.append(error)

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise DeadlinePassed(f"no answer within the {seconds:g} s deadline")
    if outcome[0] is not None:
        raise outcome[0]
