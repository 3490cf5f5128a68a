"""A chart of the report: its id (an HTML anchor and an image file name), its title, its spec."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from functools import cached_property

import altair as alt


@dataclass
class Chart:
    id: str
    title: str
    spec: alt.TopLevelMixin

    @cached_property
    def vega_lite(self) -> dict:
        """The Vega-Lite spec as JSON data (altair validates it against the schema, once)."""
        return self.spec.to_dict()


def chart_id(section: str, name: str) -> str:
    """``rule-users-match-3f2a``: readable, safe in a file name, distinct for distinct names."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "chart"
    return f"{section}-{slug}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:6]}"


def is_number(value: object) -> bool:
    """A finite int or float (not a bool): what a chart can place on an axis."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
