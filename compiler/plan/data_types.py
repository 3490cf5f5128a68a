"""Logical data types shared by the compiler, the plan and both engines."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, cast


class Kind(str, Enum):
    """The families the type checker reasons about."""

    NULL = "null"
    BOOLEAN = "boolean"
    INTEGER = "integer"  # 64-bit signed: narrower engine integers widen to it
    DOUBLE = "double"
    DECIMAL = "decimal"
    STRING = "string"
    DATE = "date"
    TIMESTAMP = "timestamp"
    BINARY = "binary"
    ARRAY = "array"
    STRUCT = "struct"
    MAP = "map"
    JSON = "json"  # a JSON value held as text (see the README: strings as their content)
    OTHER = "other"  # an engine type gryph passes through but cannot reason about


@dataclass(frozen=True, slots=True)
class DataType:
    """A logical type; nested types carry their parts in ``args``."""

    kind: Kind
    # ARRAY: (element,), MAP: (key, value), STRUCT: ((name, type), ...), DECIMAL: (precision, scale)
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        if self.kind is Kind.ARRAY:
            return f"array<{self.args[0]}>"
        if self.kind is Kind.MAP:
            return f"map<{self.args[0]}, {self.args[1]}>"
        if self.kind is Kind.STRUCT:
            return "struct<" + ", ".join(f"{n}: {t}" for n, t in self.args) + ">"
        if self.kind is Kind.DECIMAL and self.args:
            return f"decimal({self.args[0]}, {self.args[1]})"
        return str(self.kind.value)

    @property
    def is_numeric(self) -> bool:
        return self.kind in (Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.NULL)

    @property
    def is_temporal(self) -> bool:
        return self.kind in (Kind.DATE, Kind.TIMESTAMP)

    def field(self, name: str) -> DataType | None:
        """The type of a struct field, or None."""
        if self.kind is Kind.STRUCT:
            for field_name, field_type in self.args:
                if field_name == name:
                    return cast(DataType, field_type)
        return None


NULL = DataType(Kind.NULL)
BOOLEAN = DataType(Kind.BOOLEAN)
INTEGER = DataType(Kind.INTEGER)
DOUBLE = DataType(Kind.DOUBLE)
STRING = DataType(Kind.STRING)
DATE = DataType(Kind.DATE)
TIMESTAMP = DataType(Kind.TIMESTAMP)
BINARY = DataType(Kind.BINARY)
OTHER = DataType(Kind.OTHER)
JSON = DataType(Kind.JSON)


def decimal(precision: int, scale: int) -> DataType:
    return DataType(Kind.DECIMAL, (precision, scale))


def array(element: DataType) -> DataType:
    return DataType(Kind.ARRAY, (element,))


def struct(fields: tuple[tuple[str, DataType], ...]) -> DataType:
    return DataType(Kind.STRUCT, tuple(fields))


def map_of(key: DataType, value: DataType) -> DataType:
    return DataType(Kind.MAP, (key, value))


def common_numeric(left: DataType, right: DataType) -> DataType:
    """The type two numbers are compared or combined in."""
    kinds = {left.kind, right.kind} - {Kind.NULL}
    if Kind.DOUBLE in kinds:
        return DOUBLE
    if Kind.DECIMAL in kinds:
        return DOUBLE if Kind.DOUBLE in kinds else (left if left.kind is Kind.DECIMAL else right)
    return INTEGER


def comparable(left: DataType, right: DataType) -> bool:
    """Whether ``left = right`` is meaningful without an explicit cast."""
    if Kind.NULL in (left.kind, right.kind) or Kind.OTHER in (left.kind, right.kind):
        return True
    if left.is_numeric and right.is_numeric:
        return True
    if left.is_temporal and right.is_temporal:
        return True
    return left.kind == right.kind


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a schema."""

    name: str
    dtype: DataType
    nullable: bool = True


@dataclass(frozen=True, slots=True)
class Schema:
    """An ordered set of uniquely named columns."""

    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for column in self.columns:
            if column.name in seen:
                raise ValueError(f"duplicate column name {column.name!r} in schema")
            seen.add(column.name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def get(self, name: str) -> Column | None:
        for column in self.columns:
            if column.name == name:
                return column
        return None

    def column(self, name: str) -> Column:
        """The column named ``name``, which the caller knows is there (KeyError otherwise)."""
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return any(c.name == name for c in self.columns)

    def __len__(self) -> int:
        return len(self.columns)


def schema(*pairs: tuple[str, DataType]) -> Schema:
    """Build a schema from ``(name, type)`` pairs."""
    return Schema(tuple(Column(n, t) for n, t in pairs))


_NAMES = {
    "boolean": BOOLEAN,
    "bool": BOOLEAN,
    "tinyint": INTEGER,
    "smallint": INTEGER,
    "int": INTEGER,
    "integer": INTEGER,
    "bigint": INTEGER,
    "long": INTEGER,
    "short": INTEGER,
    "byte": INTEGER,
    "double": DOUBLE,
    "float": DOUBLE,
    "real": DOUBLE,
    "string": STRING,
    "varchar": STRING,
    "text": STRING,
    "char": STRING,
    "date": DATE,
    "timestamp": TIMESTAMP,
    "datetime": TIMESTAMP,
    "binary": BINARY,
    "decimal": decimal(38, 18),
}


def parse_type_name(name: str) -> DataType | None:
    """The logical type for a user-written type name (``cast(x as bigint)``, Griffin schemas)."""
    key = name.strip().lower()
    if key.startswith("decimal(") and key.endswith(")"):
        try:
            precision, scale = (int(p) for p in key[8:-1].split(","))
        except ValueError:
            return None
        # the decimals both engines hold: up to 38 digits, no more fraction digits than digits
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            return None
        return decimal(precision, scale)
    return _NAMES.get(key)


TYPE_NAMES = tuple(sorted(_NAMES))
