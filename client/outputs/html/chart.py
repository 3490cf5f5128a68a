"""A chart of the report: its id (an HTML anchor and an image file name), its title, its spec."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from functools import cached_property

import altair as alt

# a chart's text (title, axis label, legend) is cut to this many characters: vl-convert lays text
# out in time that grows faster than its length (a 200,000-character label took minutes), and a
# label is read at a glance; the page's tables show every value whole
LABEL_CHARS = 200


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


def short_label(text: str) -> str:
    """``text``, or its first ``LABEL_CHARS`` characters, an ellipsis and its full length."""
    if len(text) <= LABEL_CHARS:
        return text
    return f"{text[:LABEL_CHARS]}… ({len(text):,} characters)"


class ShortLabels:
    """Short labels of one chart's texts that stay distinct: two long texts that start alike get
    ``#2``, ``#3`` added, so their bars or lines are not merged into one; a text keeps its label."""

    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self._taken: set[str] = set()

    def __call__(self, text: str) -> str:
        if text not in self._labels:
            label, number = short_label(text), 1
            while label in self._taken:
                number += 1
                label = f"{short_label(text)} #{number}"
            self._labels[text] = label
            self._taken.add(label)
        return self._labels[text]
