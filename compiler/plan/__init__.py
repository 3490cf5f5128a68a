"""The backend-neutral relational plan: the contract between the compiler and the engines."""

from .functions import AggFn, Fn, JoinKind, WindowFn
from .histograms import grouped_counts, histogram_parts, key_histogram
from .printer import format_plan, format_relation, format_scalar
from .program import Export, Plan, Query, View
from .relations import (
    RELATION_TYPES, Aggregate, Distinct, Filter, Join, Limit, Named, PercentileSet, Project, Read, Relation,
    Sort, Sql, Window, free_prefix, inputs, reads, walk_relations,
)
from .scalars import (
    SCALAR_TYPES, AggregateCall, Between, Call, Cast, Field, IfThen, In, IsNull, Like, Literal,
    Lambda, RLike, Scalar, SortKey, Variable, WindowCall, and_all, children, coerce, contains_aggregate, count_all, not_,
    or_all, substitute, walk,
)

__all__ = [
    "AggFn", "Fn", "JoinKind", "WindowFn", "grouped_counts", "histogram_parts", "key_histogram",
    "format_plan", "format_relation", "format_scalar", "Export", "Plan", "Query", "View", "RELATION_TYPES",
    "Aggregate", "Distinct", "Filter", "Join", "Limit", "Named", "PercentileSet", "Project", "Read",
    "Relation", "Sort", "Sql", "Window", "free_prefix", "inputs", "reads", "walk_relations", "SCALAR_TYPES",
    "AggregateCall", "Between", "Call", "Cast", "Field", "IfThen", "In", "IsNull", "Like", "Literal",
    "Lambda", "RLike", "Scalar", "SortKey", "Variable", "WindowCall", "and_all", "children", "coerce",
    "contains_aggregate", "count_all", "not_", "or_all", "substitute", "walk",
]
