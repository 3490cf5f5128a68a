"""Property: aggregate metrics over one source share one scan (design.md section 2 and 4)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gryph.compiler.lowering import Options
from gryph.compiler.plan import Aggregate, Join, Limit, Project, Read, Sql
from tests.compiler.compiler_support import compile_text


def children(rel):
    if isinstance(rel, Join):
        return (rel.left, rel.right)
    if isinstance(rel, (Read, Sql)):
        return ()
    return (rel.input,)


def reads(rel) -> Counter:
    count = Counter()
    if isinstance(rel, Read):
        count[rel.source] += 1
    for child in children(rel):
        count += reads(child)
    return count


def aggregate_queries(plan):
    """Queries that are not record samples (a sample query is a bounded ``Limit``)."""
    return [q for q in plan.queries if not isinstance(q.relation, Limit)]


AGGREGATE_RULES = [
    "completeness c{i} on users: first_name",
    "completeness d{i} on users: age, (score + 1) as s",
    "profiling p{i} on users: count(*) as n, max(age) as m, count(distinct first_name) as names",
    "profiling w{i} on users: sum(age) as s where age > {i}",
    "profiling x{i} on users: max(age) - min(age) as spread where first_name like 'a%'",
    "timeliness t{i} on users: user_id, source_id",
]


@pytest.mark.parametrize("seed", range(8))
def test_several_aggregate_rules_read_their_source_once(seed):
    rng = random.Random(seed)
    picked = [rng.choice(AGGREGATE_RULES).format(i=i) for i in range(rng.randint(2, 7))]
    for sample in (0, 20):
        plan = compile_text("\n".join(picked), options=Options(record_sample=sample)).plan
        queries = aggregate_queries(plan)
        assert len(queries) == 1, "\n".join(picked)
        relation = queries[0].relation
        assert isinstance(relation, Project) and isinstance(relation.input, Aggregate)
        assert isinstance(relation.input.input, Read) and relation.input.input.source == "users"
        assert reads(relation) == Counter({"users": 1})


def test_two_sources_one_scan_each():
    plan = compile_text(
        "completeness a on users: age\ncompleteness b on orders: ts\n"
        "profiling c on users: count(*) as n\nprofiling d on orders: max(ts) as m",
        options=Options(record_sample=0),
    ).plan
    per_query = [reads(q.relation) for q in aggregate_queries(plan)]
    assert sorted(per_query, key=str) == sorted([Counter({"users": 1}), Counter({"orders": 1})], key=str)


def test_identical_aggregates_are_computed_once():
    plan = compile_text(
        "profiling a on users: count(*) as n\nprofiling b on users: count(*) as rows\ncompleteness c on users: age",
        options=Options(record_sample=0),
    ).plan
    (query,) = aggregate_queries(plan)
    measures = query.relation.input.measures
    assert len(measures) == len(set(m.expr for m in measures)) == 2  # count(*) and count(*) FILTER (age IS NULL)


def test_timeliness_threshold_count_shares_the_scan():
    plan = compile_text(
        "timeliness t on orders: ts, end_ts with threshold = 3m\ncompleteness c on orders: ts",
        options=Options(record_sample=0),
    ).plan
    assert len(aggregate_queries(plan)) == 1


def test_percentiles_of_one_value_over_the_same_rows_form_one_set():
    # two timeliness rules over the same times: the same latency over the same rows
    plan = compile_text(
        "timeliness a on orders: ts, end_ts with percentile.values = (0.5, 0.9)\n"
        "timeliness b on orders: ts, end_ts with percentile.values = (0.99)\n"
        "timeliness c on orders: ts with percentile.values = (0.25, 0.75)\n"
    ).plan
    (scan,) = [
        rel
        for q in aggregate_queries(plan)
        for rel in [q.relation.input]
        if isinstance(rel, Aggregate) and rel.percentile_sets()
    ]
    sets = scan.percentile_sets()
    assert [[fraction for _, fraction in s.members] for s in sets] == [[0.5, 0.9, 0.99], [0.25, 0.75]]
    names = {name for s in sets for name, _ in s.members}
    assert len(names) == 5 and names <= {m.name for m in scan.measures}


def test_a_key_histogram_is_recognised_and_nothing_else_is():
    from gryph.compiler.plan import Field, Named, count_all, grouped_counts, histogram_parts, key_histogram
    from gryph.compiler.plan.data_types import INTEGER, schema

    read = Read("t", schema(("k", INTEGER), ("__count", INTEGER)))
    keys = (Named(Field("k", INTEGER), "__key0"),)
    assert histogram_parts(key_histogram(grouped_counts(read, keys))) == (read, keys)
    # a group-by of a column that happens to be called __count, and a plain aggregate, are not
    assert histogram_parts(key_histogram(read)) is None
    assert histogram_parts(Aggregate(read, (), (Named(count_all(), "__values"),))) is None
