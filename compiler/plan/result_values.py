"""One representation of result values for every engine, so metrics compare exactly."""

from __future__ import annotations

import datetime as dt
import decimal
import math


def normalize(value: object) -> object:
    """Turn an engine's Python value into None, bool, int, float, str, list or dict.

    Integral decimals become int and other decimals float; dates and timestamps become ISO
    strings (timestamps without a zone, in UTC); bytes become hex text; NaN stays a float NaN.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return math.nan
        exponent = value.as_tuple().exponent  # a letter for infinities
        return (
            int(value)
            if value == value.to_integral_value() and isinstance(exponent, int) and exponent >= 0
            else float(value)
        )
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value // dt.timedelta(milliseconds=1)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    if hasattr(value, "asDict"):  # a Spark Row inside a struct column (a tuple, so asked first)
        return {k: normalize(v) for k, v in value.asDict().items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return normalize(value.item())
    return str(value)
