"""What the Spark engine does not run, and the rewrite passes it applies to a plan, declared.

Read by ``validate`` and ``run`` (a refused rule is an error before any scan), by the engine when
it meets one, by the conformance suite and by the README's support matrix. Importing this module
does not import pyspark.
"""

from __future__ import annotations

from gryph.compiler.engine import Capabilities, Gap, Refusal
from gryph.compiler.plan import Call, Fn, Literal
from gryph.compiler.plan.node import Node

# A JSON field name becomes path text $['name'], which Spark reads up to the first of these.
PATH_BREAKERS = frozenset("'\"\\[]")


def _round_with_column_scale(node: Node) -> bool:
    return (
        isinstance(node, Call)
        and node.fn is Fn.ROUND
        and len(node.args) == 2
        and not (isinstance(node.args[1], Literal) and isinstance(node.args[1].value, int))
    )


def _json_name_breaking_path(node: Node) -> bool:
    if not (isinstance(node, Call) and node.fn is Fn.JSON_FIELD):
        return False
    name = node.args[1]
    return isinstance(name, Literal) and isinstance(name.value, str) and bool(PATH_BREAKERS & set(name.value))


CAPABILITIES = Capabilities(
    "spark",
    refusals=(
        Refusal(
            "round with a column scale",
            Gap.NOT_POSSIBLE,
            "Spark's round takes its number of digits as a constant only",
            _round_with_column_scale,
        ),
        Refusal(
            "json field name with quotes or brackets",
            Gap.NOT_IMPLEMENTED,
            "get_json_object reads $['name'] up to the first quote or bracket in the name",
            _json_name_breaking_path,
        ),
    ),
    # SparkEngine.run applies these, in this order (rewrites/passes.py)
    rewrites=("shared histograms", "take samples", "pruning", "small sources", "read once", "number samples"),
)
