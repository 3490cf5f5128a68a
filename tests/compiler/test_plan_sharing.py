"""What several queries of a plan share: the outermost join or grouping they both hold."""

from __future__ import annotations

from gryph.compiler.plan import Call, Field, Filter, Fn, Limit, Literal, Named, Read, grouped_counts, key_histogram
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, Column, Schema
from gryph.compiler.plan.sharing import replace_shared, shared_work

T = Read("t", Schema((Column("k", INTEGER),)))
COUNTED = grouped_counts(T, (Named(Field("k", INTEGER), "__key0"),))
DUPLICATED = Filter(COUNTED, Call(Fn.GT, (Field("__count", INTEGER), Literal(1, INTEGER)), BOOLEAN))


def test_the_outermost_shared_grouping_is_shared_not_what_it_holds():
    histogram = key_histogram(COUNTED)
    # the histogram over the histogram holds the grouping too, but only inside the histogram
    assert shared_work([histogram, Limit(DUPLICATED, 20), key_histogram(histogram)]) == [histogram]
    assert shared_work([histogram, Limit(DUPLICATED, 20)]) == [COUNTED]
    # two reads of a plain filter share nothing worth keeping
    positive = Filter(T, Call(Fn.GT, (Field("k", INTEGER), Literal(0, INTEGER)), BOOLEAN))
    assert shared_work([positive, Limit(positive, 20)]) == []


def test_replacing_a_shared_relation_replaces_every_copy_of_it():
    stand_in = Read("kept_counts", COUNTED.schema)  # an in-memory plan: no file is read
    replaced = replace_shared(Limit(DUPLICATED, 20), {COUNTED: stand_in})
    assert replaced == Limit(Filter(stand_in, DUPLICATED.condition), 20)
