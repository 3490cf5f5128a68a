"""Data times: the moment a run's data is about (``--data-time 2026-11-24``), which keys the
history; and the ranges ``gryph backfill`` walks."""

from __future__ import annotations

import datetime as dt
import re

from ..errors import InvalidInput, Location
from ..language.time_literals import duration_ms

COMMAND_LINE = Location("command line")  # where an option's value is wrong
MAX_RUNS = 10_000  # a backfill longer than this is a mistaken step
_FORMATS = "a date 2026-11-24 or a time 2026-11-24T06:00 (UTC unless it says +01:00)"


def parse_data_time(text: str, what: str = "--data-time", location: Location = COMMAND_LINE) -> dt.datetime:
    """An ISO date (midnight UTC) or date and time (UTC unless it carries an offset), zone-aware."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
            moment = dt.datetime.combine(dt.date.fromisoformat(text.strip()), dt.time())
        else:
            moment = dt.datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise InvalidInput(
            "BAD_DATA_TIME",
            f"{what} {text!r} is no date or time ({error})",
            location=location,
            text=text,
            hint=f"write {_FORMATS}",
        ) from None
    return moment.replace(tzinfo=dt.timezone.utc) if moment.tzinfo is None else moment.astimezone(dt.timezone.utc)


def shown(moment: dt.datetime) -> str:
    """A data time as the history and outputs show it: the date alone at midnight UTC."""
    moment = moment.astimezone(dt.timezone.utc)
    if moment.time() == dt.time():
        return moment.date().isoformat()
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def data_time_range(start: str, end: str, step: str) -> list[dt.datetime]:
    """The data times from ``start`` to ``end`` (both included) every ``step`` (``1d``, ``6h``)."""
    first, last = parse_data_time(start, "--from"), parse_data_time(end, "--to")
    if first > last:
        raise InvalidInput(
            "BAD_RANGE",
            f"--from {start} is after --to {end}",
            location=COMMAND_LINE,
            text=f"{start} .. {end}",
            hint="swap them: --from is the first data time, --to the last",
        )
    try:
        ms = duration_ms(step)
    except ValueError:
        ms = None
    if not ms:
        raise InvalidInput(
            "BAD_RANGE",
            f"--step {step!r} is no positive duration",
            location=COMMAND_LINE,
            text=step,
            hint="write a duration such as 1d, 6h or 30m",
        )
    every = dt.timedelta(milliseconds=ms)
    if (last - first) / every >= MAX_RUNS:
        raise InvalidInput(
            "BAD_RANGE",
            f"--from {start} --to {end} every {step} is more than {MAX_RUNS} runs",
            location=COMMAND_LINE,
            text=step,
            hint="take a longer --step or a shorter range",
        )
    moments, moment = [], first
    while moment <= last:
        moments.append(moment)
        moment += every
    return moments
