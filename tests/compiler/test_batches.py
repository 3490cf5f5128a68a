"""The one batching helper both engines run their queries through (compiler/plan/batches.py)."""

import pytest

from gryph.compiler.plan.batches import MAX_BRANCHES, in_batches


class BatchFailed(Exception):
    pass


def test_items_run_together_in_batches_of_at_most_max_branches():
    batches = []

    def together(batch):
        batches.append(list(batch))
        return [item * 10 for item in batch]

    items = list(range(MAX_BRANCHES * 2 + 3))  # two full batches and one of three
    out = in_batches(items, together, lambda item: pytest.fail("nothing runs alone"), BatchFailed)
    assert out == [item * 10 for item in items]
    assert [len(batch) for batch in batches] == [64, 64, 3]


def test_a_batch_of_one_runs_alone():
    out = in_batches([7], lambda batch: pytest.fail("one item is no batch"), lambda item: item + 1, BatchFailed)
    assert out == [8]


def test_a_failing_batch_runs_each_of_its_items_alone_and_the_others_stay_together():
    alone_ran = []

    def together(batch):
        if 70 in batch:  # the second batch (items 64..69 and 70) fails
            raise BatchFailed
        return [-item for item in batch]

    def alone(item):
        alone_ran.append(item)
        return item

    items = list(range(MAX_BRANCHES + 7))
    out = in_batches(items, together, alone, BatchFailed)
    assert out == [-i for i in range(64)] + list(range(64, 71))
    assert alone_ran == list(range(64, 71))


def test_the_failing_item_alone_raises_its_own_error():
    def alone(item):
        if item == "bad":
            raise ValueError("query 'bad' failed")
        return item

    def together(batch):
        raise BatchFailed

    with pytest.raises(ValueError, match="query 'bad' failed"):
        in_batches(["good", "bad", "other"], together, alone, BatchFailed)


def test_an_error_that_is_not_a_batch_failure_is_not_retried():
    def together(batch):
        raise KeyboardInterrupt  # a cancel: running each alone would undo it

    with pytest.raises(KeyboardInterrupt):
        in_batches([1, 2], together, lambda item: pytest.fail("no retry after a cancel"), BatchFailed)
