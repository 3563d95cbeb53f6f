"""A small immutable value type for the modules a hook process imports.

``dataclasses`` pulls in ``inspect`` and ``typing.NamedTuple`` pulls in
``typing``: together several milliseconds of every hook's start-up. Classes
here declare ``__slots__`` and a typed ``__init__`` that calls ``_init``;
they get equality, hashing, ``repr`` and ``_replace`` from this base.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self

__all__ = ["Record"]


class Record:
    """Immutable after ``__init__``; compared and hashed by its slot values."""

    __slots__: tuple[str, ...] = ()

    def _init(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use _replace()")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: Any) -> Self:
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {', '.join(sorted(unknown))}")
        new = object.__new__(type(self))
        for name in self.__slots__:
            object.__setattr__(new, name, changes.get(name, getattr(self, name)))
        return new
