"""Griffe extension: the constructor of a ``signet_sdk.wire.record.Record`` class in the docs.

A record declares its fields as annotations and gets its ``__init__`` from the
base at run time, so reading the source alone shows ``(*args, **kwargs)``.
This builds the signature the class really has, in field order: defaults from
the class attributes, ``field(default_factory=f)`` shown as ``f()``, and the
fields after ``_: KW_ONLY`` keyword-only. A class with its own ``__init__``
keeps it.
"""

from __future__ import annotations

from typing import Any

from griffe import (
    Attribute,
    Class,
    Expr,
    ExprCall,
    ExprKeyword,
    Extension,
    Function,
    Module,
    Parameter,
    ParameterKind,
    Parameters,
)

RECORD = "signet_sdk.wire.record.Record"


def _is_record(class_: Class) -> bool:
    return any(isinstance(base, Expr) and base.canonical_path == RECORD for base in class_.bases)


def _default(field: Attribute) -> str | Expr | None:
    value = field.value
    if isinstance(value, ExprCall) and value.function.canonical_path.endswith(".field"):
        for argument in value.arguments:
            if isinstance(argument, ExprKeyword) and argument.name == "default_factory":
                return ExprCall(function=argument.value, arguments=[])
    return value


def _parameters(class_: Class) -> list[Parameter]:
    kind = ParameterKind.positional_or_keyword
    parameters = [Parameter("self", kind=kind)]
    for member in class_.members.values():
        if not isinstance(member, Attribute) or member.annotation is None:
            continue
        if "instance-attribute" not in member.labels:
            continue  # a ClassVar
        annotation = member.annotation
        if isinstance(annotation, Expr) and annotation.canonical_path.endswith("KW_ONLY"):
            kind = ParameterKind.keyword_only
            continue
        parameters.append(
            Parameter(member.name, annotation=annotation, kind=kind, default=_default(member))
        )
    return parameters


class RecordInit(Extension):
    """Gives every ``Record`` class without its own ``__init__`` the one it has at run time."""

    def on_package(self, *, pkg: Module, **kwargs: Any) -> None:
        self._visit(pkg, set())

    def _visit(self, node: Module | Class, seen: set[str]) -> None:
        if node.path in seen:
            return
        seen.add(node.path)
        if isinstance(node, Class) and _is_record(node) and "__init__" not in node.members:
            init = Function("__init__", parent=node, parameters=Parameters(*_parameters(node)))
            init.returns = "None"
            node.set_member("__init__", init)
        for member in node.members.values():
            if not member.is_alias and (member.is_module or member.is_class):
                self._visit(member, seen)  # type: ignore[arg-type]
