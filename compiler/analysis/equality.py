"""How Griffin compares: NULL equals NULL (and '' when either side is text), and a condition
that is NULL is false."""

from __future__ import annotations

from ..plan import Call, Cast, Fn, Literal, Scalar
from ..plan.data_types import BOOLEAN, STRING, Kind


def _as_text(value: Scalar) -> Scalar:
    return value if value.dtype.kind in (Kind.STRING, Kind.NULL) else Cast(value, STRING)


def compared_as_text(left: Scalar, right: Scalar) -> bool:
    """Griffin compares two values as text when either is text."""
    return Kind.STRING in (left.dtype.kind, right.dtype.kind)


def comparison_key(value: Scalar, as_text: bool) -> Scalar:
    """What Griffin's equality really compares: ``coalesce(x, '')`` for text, else the value."""
    if not as_text:
        return value
    return Call(Fn.COALESCE, (_as_text(value), Literal("", STRING)), STRING)


def griffin_equality(left: Scalar, right: Scalar) -> Scalar:
    """``left = right`` as Griffin compares: NULL equals NULL, and NULL equals '' for text."""
    as_text = compared_as_text(left, right)
    return Call(
        Fn.EQ if as_text else Fn.EQ_NULL_SAFE, (comparison_key(left, as_text), comparison_key(right, as_text)), BOOLEAN
    )


def true_only(condition: Scalar) -> Scalar:
    """``condition`` with NULL read as false (Griffin's ``when(cond, ...).otherwise(...)``)."""
    return Call(Fn.COALESCE, (condition, Literal(False, BOOLEAN)), BOOLEAN)
