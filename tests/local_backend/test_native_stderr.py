"""fd 2 held around native code: Rust's panic text is dropped in each form its hook prints, and
whatever else was written meanwhile reaches stderr when the hold ends."""

from __future__ import annotations

import os
import threading

import pytest

from gryph.local_backend.sources.native_stderr import panics_held

SHORT = (
    b"\nthread '<unnamed>' (4242) panicked at src/arrow_batch_iter.rs:162:39:\n"
    b"cx writer failed: Source(MySQLError(ERROR 1969))\n"
    b"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
BACKTRACE = (
    b"\nthread '<unnamed>' (4242) panicked at src/arrow_batch_iter.rs:162:39:\n"
    b"cx writer failed: Source(MySQLError(ERROR 1969))\n"
    b"stack backtrace:\n   0: __rustc::rust_begin_unwind\n             at src/lib.rs:1:1\n"
    b"note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
)
FULL = (  # no closing note: the rest of what was held is the backtrace
    b"thread 'main' panicked at src/main.rs:2:5:\nboom\nstack backtrace:\n   0:     0x7f00 - std::panicking\n"
)


@pytest.mark.parametrize("panic", [SHORT, BACKTRACE, FULL], ids=["short", "backtrace", "full"])
def test_a_panic_is_dropped_and_other_text_written_after(capfd, panic):
    with panics_held():
        os.write(2, b"before\n")
        os.write(2, panic)
        os.write(2, b"" if panic is FULL else b"after\n")
        assert capfd.readouterr().err == ""  # held: nothing yet
    assert capfd.readouterr().err == ("before\n" if panic is FULL else "before\nafter\n")


def test_overlapping_holds_restore_stderr_once_the_last_ends(capfd):
    """Two of DuckDB's threads pulling two streams: fd 2 comes back when both are done."""
    first_in, second_done = threading.Event(), threading.Event()

    def second() -> None:
        first_in.wait()
        with panics_held():
            os.write(2, SHORT + b"from the second\n")
        second_done.set()

    worker = threading.Thread(target=second)
    worker.start()
    with panics_held():
        first_in.set()
        second_done.wait()
        assert capfd.readouterr().err == ""  # the second's hold ended inside the first's
        os.write(2, b"from the first\n")
    worker.join()
    assert capfd.readouterr().err == "from the second\nfrom the first\n"
    os.write(2, b"free\n")
    assert capfd.readouterr().err == "free\n"
