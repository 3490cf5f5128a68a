"""Griffin's partition placeholders: ``#yyyyMMdd#`` in a ``where`` filter is the job's time in that
Java date pattern (Griffin's service fills them in when it schedules a job)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

_PLACEHOLDER = re.compile(r"#([^#\s]+)#")
# Java SimpleDateFormat letters and the strftime fields they stand for
_FIELDS = (("yyyy", "%Y"), ("yy", "%y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S"))


def fill_time_patterns(text: str, timestamp_ms: int) -> str:
    """``text`` with each ``#pattern#`` replaced by the time formatted by it (UTC)."""
    moment = datetime.fromtimestamp(timestamp_ms / 1000, tz=timezone.utc)

    def fill(match: re.Match[str]) -> str:
        pattern = match.group(1)
        out = ""
        while pattern:
            for letters, field in _FIELDS:
                if pattern.startswith(letters):
                    out += moment.strftime(field)
                    pattern = pattern[len(letters) :]
                    break
            else:
                if pattern[0].isalpha():
                    return str(match.group(0))  # not a date pattern: left as written
                out += pattern[0]
                pattern = pattern[1:]
        return out

    return _PLACEHOLDER.sub(fill, text)
