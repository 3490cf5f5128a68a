"""Names and types: the check pass's resolver, split by job.

``scope`` (what names mean in a rule), ``resolver`` (operators and literals), ``names`` (columns,
heads and selections), ``functions`` (calls and aggregates), ``unify`` (operand types).
"""

from .resolver import INT64_MAX, Resolver
from .scope import Context, Scope, Side

__all__ = ["INT64_MAX", "Context", "Resolver", "Scope", "Side"]
