"""A relation defined outside the plan (as an engine's rewrites define theirs) prunes and prints
itself through ``Relation.prune`` and ``Relation.describe``; the compiler needs no registration."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from gryph.compiler.plan import Field, Filter, Literal, Read, Relation
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, Schema, schema
from gryph.compiler.plan.functions import Fn
from gryph.compiler.plan.printer import format_relation
from gryph.compiler.plan.pruning import prune_columns
from gryph.compiler.plan.scalars import call

T = schema(("a", INTEGER), ("b", INTEGER), ("c", INTEGER), ("d", INTEGER))


@dataclass(frozen=True, slots=True)
class Keyed(Relation):
    """``input``'s rows, kept together by the column ``key`` (a stand-in for an engine's node)."""

    input: Relation
    key: str

    @property
    def schema(self) -> Schema:
        return self.input.schema

    def prune(self, needed: frozenset[str] | None) -> Relation:
        return replace(self, input=prune_columns(self.input, None if needed is None else needed | {self.key}))

    def describe(self) -> str:
        return f"Keyed by {self.key}"


@dataclass(frozen=True, slots=True)
class Silent(Relation):
    """A relation outside the plan that says nothing about itself."""

    input: Relation

    @property
    def schema(self) -> Schema:
        return self.input.schema


def test_a_foreign_relation_prunes_itself_and_the_plan_below_it():
    # only a is needed above; Keyed adds its key c; the filter below it adds b; nobody reads d
    b_positive = call(Fn.GT, Field("b", INTEGER), Literal(0, INTEGER), dtype=BOOLEAN)
    rel = Keyed(Filter(Read("t", T), b_positive), "c")
    abc = schema(("a", INTEGER), ("b", INTEGER), ("c", INTEGER))
    assert prune_columns(rel, frozenset({"a"})) == Keyed(Filter(Read("t", abc), b_positive), "c")
    assert prune_columns(Keyed(Read("t", T), "c"), frozenset({"a"})) == Keyed(
        Read("t", schema(("a", INTEGER), ("c", INTEGER))), "c"
    )
    assert prune_columns(rel) == rel  # every output column needed: every column read


def test_a_foreign_relation_prints_its_own_line_above_its_inputs():
    assert format_relation(Keyed(Read("t", T), "c")) == "Keyed by c\n  Read t [a, b, c, d]"


def test_a_foreign_relation_that_does_not_say_is_refused_by_name():
    with pytest.raises(TypeError, match="cannot prune a Silent"):
        prune_columns(Silent(Read("t", T)))
    with pytest.raises(TypeError, match="no printed form for a Silent"):
        format_relation(Silent(Read("t", T)))
