"""Rules an engine declares it does not run, found in the checked suite or the plan before any
scan: ``validate --engine`` and ``run`` report them at the rule, in the engine's own wording."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from gryph.compiler.analysis import CheckedSuite
from gryph.compiler.compile import CompiledSuite
from gryph.compiler.engine import Capabilities, unsupported_message
from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import Scalar, format_scalar
from gryph.compiler.plan.node import Node


def refuse_rules(checked: CheckedSuite, capabilities: Capabilities) -> None:
    """Raise ENGINE_REFUSES at the first rule or measure (in the suite's order) that holds a
    feature ``capabilities`` refuses."""
    for item in (*checked.rules, *checked.measures):
        for refusal, node in capabilities.refused_in(_plan_nodes(item, skip="spec")):
            raise InvalidInput(
                "ENGINE_REFUSES",
                unsupported_message(refusal.feature, capabilities.engine, refusal.gap),
                location=item.spec.location,
                text=format_scalar(node) if isinstance(node, Scalar) else item.spec.name,
                hint=f"{refusal.reason}; run {item.spec.name!r} on another engine, or write it another way",
            )


def refuse_plan(compiled: CompiledSuite, capabilities: Capabilities, checked: Callable[[], CheckedSuite]) -> None:
    """Raise as ``refuse_rules`` does when the plan holds a refused feature (``checked`` gives the
    checked suite that locates it); one that no rule holds is refused as the engine would."""
    plan = compiled.plan
    relations = [v.relation for v in plan.views] + [q.relation for q in plan.queries]
    for refusal, _node in capabilities.refused_in(relations + [e.relation for e in plan.exports]):
        refuse_rules(checked(), capabilities)
        raise capabilities.refuse(refusal.feature)


def _plan_nodes(value: object, skip: str = "") -> Iterator[Node]:
    """The plan nodes a checked rule holds, in its fields (and tuples and parts of them)."""
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _plan_nodes(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if field.name != skip:
                yield from _plan_nodes(getattr(value, field.name))
