"""A small immutable value type for the modules a hook process imports.

``dataclasses`` pulls in ``inspect`` and ``typing.NamedTuple`` pulls in
``typing``: together several milliseconds of every hook's start-up. A
``Record`` subclass states each field once, as an annotation with its default
as the class attribute, the way a dataclass does::

    class RetryPolicy(Record):
        max_retries: int = 2
        initial_delay: float = 0.2

The metaclass turns the annotations (strings, under ``from __future__ import
annotations``: only their names are read) into ``__slots__`` and the field
order of the shared ``__init__``: positional or keyword, with the defaults,
raising ``TypeError`` for a missing or unknown field as a dataclass does.
Fields after a ``_: KW_ONLY`` line are keyword-only; ``field(default_factory=)``
gives each record its own mutable default; a ``__post_init__`` runs after the
fields are set (a check, a derived value). A class that defines its own
``__init__`` keeps it and sets its fields with ``_init``. Records get equality,
hashing, ``repr`` and ``_replace`` from this base.

For type checkers the base is marked with ``typing.dataclass_transform``, so
constructor calls are checked against the fields; at run time that marker and
``KW_ONLY`` cost nothing (no ``typing`` import).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import KW_ONLY as KW_ONLY
    from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

    _T = TypeVar("_T")

    def field(*, default_factory: Callable[[], _T]) -> _T:
        """A default made afresh for every record (a dict, a list)."""
        ...

else:

    class KW_ONLY:
        """Annotate ``_`` with this: the fields after it are keyword-only."""

    def field(*, default_factory):
        """A default made afresh for every record (a dict, a list)."""
        return _Factory(default_factory)

    def dataclass_transform(**_options):
        return lambda cls: cls


__all__ = ["KW_ONLY", "Record", "field"]


#: The default of a field that has none: the caller must give it.
_REQUIRED: Any = object()


class _Factory:
    """What ``field(default_factory=...)`` leaves as a class attribute."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


class _RecordType(type):
    """Reads a record class's annotations into its fields, slots and defaults."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> _RecordType:
        if any(isinstance(base, _RecordType) for base in bases):
            _declare_fields(name, bases, namespace)
        return super().__new__(mcls, name, bases, namespace)


def _declare_fields(name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
    if "__slots__" in namespace:
        raise TypeError(f"{name}: a record's slots come from its annotations; drop __slots__")
    fields: list[str] = []
    positional = -1
    defaults: dict[str, Any] = {}
    after_default = False
    for field_name, annotation in namespace.get("__annotations__", {}).items():
        kind = annotation if type(annotation) is str else repr(annotation)
        if kind.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if annotation is KW_ONLY or kind in ("KW_ONLY", "dataclasses.KW_ONLY"):
            positional = len(fields)
            continue
        if field_name in namespace:
            defaults[field_name] = namespace.pop(field_name)
            after_default = True
        elif after_default and positional < 0:
            raise TypeError(f"{name}: field {field_name} without a default follows one with")
        else:
            defaults[field_name] = _REQUIRED
        fields.append(field_name)
    namespace["__slots__"] = tuple(fields)
    if any(getattr(base, "_fields", ()) for base in bases):
        if fields:
            raise TypeError(f"{name}: a record cannot extend another record's fields")
        return  # methods only: the fields, order and defaults are the base's
    namespace["_fields"] = tuple(fields)
    namespace["_positional"] = len(fields) if positional < 0 else positional
    namespace["_defaults"] = defaults


@dataclass_transform(eq_default=True, frozen_default=True, field_specifiers=(field,))
class Record(metaclass=_RecordType):
    """Immutable after ``__init__``; compared and hashed by its field values."""

    __slots__: tuple[str, ...] = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _positional: ClassVar[int] = 0
    #: Every field's default, ``_REQUIRED`` where there is none.
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fields = cls._fields
        given = len(args)
        if given > cls._positional:
            raise TypeError(
                f"{cls.__name__}() takes {cls._positional} positional arguments"
                f" but {given} were given"
            )
        setattr_ = object.__setattr__
        for field_name, value in zip(fields, args, strict=False):
            setattr_(self, field_name, value)
        if given < len(fields) or kwargs:
            defaults = cls._defaults
            take = kwargs.pop
            missing = []
            for field_name in fields[given:]:
                value = take(field_name, defaults[field_name])
                if value is _REQUIRED:
                    missing.append(field_name)
                    continue
                if type(value) is _Factory:
                    value = value.make()
                setattr_(self, field_name, value)
            if kwargs:
                extra = next(iter(kwargs))
                if extra in fields:
                    raise TypeError(f"{cls.__name__}() got multiple values for field {extra!r}")
                raise TypeError(f"{cls.__name__}() got an unexpected field {extra!r}")
            if missing:
                raise TypeError(f"{cls.__name__}() missing field(s): {', '.join(missing)}")
        self.__post_init__()

    def __post_init__(self) -> None:
        """Checks or derived values after the fields are set; nothing by default."""

    def _init(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use _replace()")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: Any) -> Self:
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {', '.join(sorted(unknown))}")
        new = object.__new__(type(self))
        for name in self._fields:
            object.__setattr__(new, name, changes.get(name, getattr(self, name)))
        return new
