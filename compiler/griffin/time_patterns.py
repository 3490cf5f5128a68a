"""Griffin's partition placeholders: ``#yyyyMMdd#`` in a ``where`` filter is the job's time in that
Java date pattern (Griffin's service fills them in when it schedules a job)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ..spark_dialect.datetime_patterns import FIELDS, PatternError, parse_pattern

_PLACEHOLDER = re.compile(r"#([^#\s]+)#")


def fill_time_patterns(text: str, timestamp_ms: int) -> str:
    """``text`` with each ``#pattern#`` replaced by the time formatted by it (UTC); a placeholder
    that is not a supported date pattern is left as written."""
    moment = datetime.fromtimestamp(timestamp_ms / 1000, tz=timezone.utc)

    def fill(match: re.Match[str]) -> str:
        try:
            parts = parse_pattern(match.group(1))
        except PatternError:
            return match.group(0)
        return "".join(FIELDS[part.text].write(moment) if part.is_field else part.text for part in parts)

    return _PLACEHOLDER.sub(fill, text)
