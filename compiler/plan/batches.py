"""Queries run together in batches, each batch's queries again alone when the batch fails.

Both engines run a run's queries as few statements (a union tagged by query) and, when one
fails, run its queries one by one to say which query it was. The engine supplies the two
primitives: run these together, run this one alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# More branches make one very wide statement (a struct column per query in every branch)
MAX_BRANCHES = 64


def in_batches(
    items: Sequence[Item],
    together: Callable[[Sequence[Item]], list[Result]],
    alone: Callable[[Item], Result],
    failed: type[BaseException] | tuple[type[BaseException], ...],
) -> list[Result]:
    """The result of each item, in order: ``together`` on batches of up to ``MAX_BRANCHES``
    items (a batch of one runs ``alone``); a batch whose ``together`` raises ``failed`` runs
    each of its items ``alone`` instead, so that the failing one raises its own error."""
    out: list[Result] = []
    for start in range(0, len(items), MAX_BRANCHES):
        batch = items[start : start + MAX_BRANCHES]
        if len(batch) == 1:
            out.append(alone(batch[0]))
            continue
        try:
            out += together(batch)
        except failed:
            out += [alone(item) for item in batch]
    return out
