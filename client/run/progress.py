"""A progress line on the terminal during a run: the phase and the time elapsed. Shown only when
both output streams are a terminal (never in JSON output, a pipe or with --quiet), and erased
when the run ends."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

Phase = Callable[[str], None]


def no_progress(_phase: str) -> None:
    """Where nobody watches: phases pass unseen."""


def shows_progress(quiet: bool, machine_output: bool) -> bool:
    return not quiet and not machine_output and sys.stdout.isatty() and sys.stderr.isatty()


@contextlib.contextmanager
def terminal_progress(enabled: bool) -> Iterator[Phase]:
    """A ``phase(text)`` callback that shows ``text`` with a spinner and the elapsed time on stderr."""
    if not enabled:
        yield no_progress
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("starting", total=None)
        yield lambda text: progress.update(task, description=text, refresh=True)
