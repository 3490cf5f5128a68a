"""ODCS 3.1 ``relationships`` (foreign keys, composite ones too) as accuracy rules against the other
object's source: a row whose key no row of the other object has is a miss.

As a SQL foreign key (MATCH SIMPLE), a row with any part of its key NULL is not judged: NULL is no
miss. Docs: docs/contracts.md ("Semantics").
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spark_dialect.spark_names import quoted
from ..suites.suite import RowClause
from .quality_rules import ContractProblem
from .yaml_document import Path, YamlMap, show_path


@dataclass(frozen=True)
class Relationship:
    """One foreign key: its columns in ``source`` and the columns they reference in ``target``."""

    source: str
    columns: tuple[str, ...]
    target: str
    referenced: tuple[str, ...]
    path: Path

    @property
    def rule(self) -> str:
        """The accuracy rule's name: its contract path as an identifier."""
        return "rel_" + "_".join(str(part) for part in self.path if isinstance(part, int))

    @property
    def same(self) -> str:
        """The condition a row's key meets in a row of the other object."""
        return " and ".join(
            f"{self.source}.{quoted(a)} = {self.target}.{quoted(b)}"
            for a, b in zip(self.columns, self.referenced, strict=True)
        )

    def clause(self) -> RowClause:
        """The rows the accuracy rule misses fail the relationship, named by its contract path."""
        return RowClause(show_path(self.path), self.source, self.same, rule=self.rule)

    def statements(self) -> tuple[str, str]:
        """The accuracy rule and the check that it misses no row."""
        # a NULL key part is no value on either side (Griffin's accuracy would match '' with NULL)
        present = " and ".join(
            [f"{self.source}.{quoted(a)} is not null" for a in self.columns]
            + [f"{self.target}.{quoted(b)} is not null" for b in self.referenced]
        )
        return (
            f"accuracy {self.rule} on {self.source}, {self.target}: {self.same} when {present}",
            f'check "{show_path(self.path)}": metrics["{self.rule}"]["miss"] == 0',
        )


def relationships(objects: list[YamlMap], source_names: list[str]) -> list[Relationship]:
    """Every relationship of the contract's objects, property-level and schema-level, in order."""
    found = []
    for index, obj in enumerate(objects):
        for position, prop in enumerate(obj.get("properties") or []):
            for number, relation in enumerate(prop.get("relationships") or []):
                path: Path = ("schema", index, "properties", position, "relationships", number)
                here = f"{obj.get('name')}.{prop.get('name')}"
                found.append(_relationship(relation, [here], objects, source_names, path))
        for number, relation in enumerate(obj.get("relationships") or []):
            path = ("schema", index, "relationships", number)
            found.append(_relationship(relation, _listed(relation.get("from")), objects, source_names, path))
    return found


def _listed(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else [str(value)]


def _relationship(
    relation: YamlMap, froms: list[str], objects: list[YamlMap], names: list[str], path: Path
) -> Relationship:
    tos = _listed(relation.get("to"))
    if len(froms) != len(tos):
        raise ContractProblem(path, f"'from' names {len(froms)} properties and 'to' {len(tos)}: they pair up")
    source, columns = _resolved(froms, objects, names, path)
    target, referenced = _resolved(tos, objects, names, path)
    return Relationship(source, columns, target, referenced, path)


def _resolved(
    references: list[str], objects: list[YamlMap], names: list[str], path: Path
) -> tuple[str, tuple[str, ...]]:
    """The source of the one object ``references`` name and the physical columns of their properties."""
    sources, columns = set(), []
    for reference in references:
        object_name, _, property_name = reference.partition(".")
        index = next((i for i, obj in enumerate(objects) if obj.get("name") == object_name), None)
        if index is None or not property_name or "/" in reference:
            raise ContractProblem(
                path, f"{reference!r} names no object of this contract (write 'object.property', by their names)"
            )
        prop = next((p for p in objects[index].get("properties") or [] if p.get("name") == property_name), None)
        if prop is None:
            raise ContractProblem(path, f"{reference!r}: object {object_name!r} has no property {property_name!r}")
        sources.add(names[index])
        columns.append(str(prop.get("physicalName") or prop["name"]))
    if len(sources) != 1:
        raise ContractProblem(path, "the properties of one side of a relationship are of one object")
    return sources.pop(), tuple(columns)
