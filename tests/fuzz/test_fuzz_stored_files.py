"""The stored-file fuzzer in the normal test run (stored_files.py): a short fixed-seed run over a
real stream state and a real run history, each case one value mutated, every case ending as a
result or a located error. ``make fuzz`` runs many more."""

from __future__ import annotations

import pytest

from tests.fuzz.stored_files import StoredFiles, stored_cases

FIXED_SEED = 20261128
CASES = {"state": 20, "history": 10}  # the history's cases run the HTML report: seconds each


@pytest.fixture(scope="module")
def stored_files(tmp_path_factory):
    return StoredFiles(tmp_path_factory.mktemp("stored"))


@pytest.mark.parametrize("kind", sorted(CASES))
def test_mutated_stored_values_end_as_a_result_or_a_located_error(stored_files, kind):
    failures = [
        f"case {number}: {problem}"
        for number, case in enumerate(stored_cases(stored_files, kind, FIXED_SEED, CASES[kind]))
        if (problem := stored_files.outcome(case))
    ]
    assert not failures, "\n".join(failures[:20])


def test_the_tmst_case_the_fuzzer_found_is_a_stream_state_error(stored_files):
    """A batch time of -2**62 made Python's datetime fail (year -146136543): found by seed 1."""
    from tests.fuzz.stored_files import StoredCase

    case = StoredCase("state", "batches.tmst = -2**62", [("update batches set tmst = ? where batch = 4", [-(2**62)])])
    assert stored_files.outcome(case) is None
