"""Record: fields declared once, as annotations, and what a dataclass would do with them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from signet_sdk.wire.record import KW_ONLY, Record, field

#: The metaclass, to build record classes from a namespace as a class statement would.
RECORD_TYPE: Any = type(Record)


class Point(Record):
    x: int
    y: int = 0
    _: KW_ONLY
    tags: list[str] = field(default_factory=list)
    label: str | None = None
    scale: ClassVar[int] = 10


class Checked(Record):
    size: int

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("size must be zero or more")


def test_fields_come_from_the_annotations_in_order() -> None:
    assert Point._fields == ("x", "y", "tags", "label")
    assert Point.__slots__ == Point._fields
    assert Point.scale == 10  # a ClassVar stays a class attribute, not a field
    assert not hasattr(Point(1), "__dict__")


def test_positional_keyword_and_default_values() -> None:
    assert Point(1, 2, tags=["a"], label="p") == Point(x=1, y=2, tags=["a"], label="p")
    point = Point(1)
    assert (point.x, point.y, point.tags, point.label) == (1, 0, [], None)
    assert Point(1).tags is not Point(1).tags  # a fresh default for each record


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # Type checkers refuse these calls too: the ignores say so.
        (lambda: Point(), "missing field(s): x"),  # type: ignore[call-arg]
        (lambda: Point(1, 2, ["a"]), "takes 2 positional arguments but 3 were given"),  # type: ignore[call-arg]
        (lambda: Point(1, z=3), "unexpected field 'z'"),  # type: ignore[call-arg]
        (lambda: Point(1, x=2), "multiple values for field 'x'"),  # type: ignore[misc]
    ],
)
def test_bad_constructor_calls_name_the_field(make: Callable[[], object], message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        make()


def test_post_init_runs_after_the_fields_are_set() -> None:
    assert Checked(3).size == 3
    with pytest.raises(ValueError, match="zero or more"):
        Checked(-1)


def test_immutable_equal_hashable_with_repr_and_replace() -> None:
    point = Point(1, 2, label="p")
    with pytest.raises(AttributeError, match="immutable"):
        point.x = 5  # type: ignore[misc]
    assert repr(point) == "Point(x=1, y=2, tags=[], label='p')"
    assert point._replace(y=3) == Point(1, 3, label="p")
    assert hash(Checked(1)) == hash(Checked(1)) and Checked(1) != Checked(2)
    assert Checked(1) != Point(1)
    with pytest.raises(TypeError, match="no field"):
        point._replace(z=1)


@pytest.mark.parametrize(
    ("namespace", "message"),
    [
        ({"__annotations__": {"a": "int"}, "__slots__": ("a",)}, "drop __slots__"),
        ({"__annotations__": {"a": "int", "b": "int"}, "a": 1}, "b without a default"),
    ],
)
def test_bad_declarations_are_refused(namespace: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        RECORD_TYPE("Bad", (Record,), namespace)


def test_a_subclass_may_add_methods_but_not_fields() -> None:
    class Sized(Checked):
        def doubled(self) -> int:
            return self.size * 2

    assert Sized(size=2).doubled() == 4 and repr(Sized(2)) == "Sized(size=2)"
    with pytest.raises(TypeError, match="cannot extend"):
        RECORD_TYPE("More", (Checked,), {"__annotations__": {"extra": "int"}})
