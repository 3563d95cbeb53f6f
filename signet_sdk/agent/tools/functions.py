"""``@tool``: a plain Python function, sync or async, as a tool.

The input schema is built from the signature with pydantic: each parameter
is a property (its type, its default, the description of an
``Annotated[..., Field(description=...)]``), unknown arguments are
refused, and the model's arguments are validated before the function runs,
so a bad one comes back to the model naming the field. A parameter
annotated :class:`~signet_sdk.agent.tools.base.CallContext` receives the
call's context and is not shown to the model.

Both kinds of function serve both kinds of session: a sync function is
awaited in a worker thread (the event loop keeps serving), an async one is
run to completion on a private event loop when called sync.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import typing
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field, create_model

from signet_sdk.agent.tools.base import (
    CallContext,
    check_tool_name,
    turn_text,
    validate_input,
)
from signet_sdk.agent.types import ToolSpec

__all__ = ["FunctionTool", "tool"]


def _drop_titles(schema: dict[str, Any]) -> None:
    """Pydantic titles each property with its own name, capitalized: words that tell nothing."""
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)


def _first_paragraph(function: Callable[..., Any]) -> str:
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def _run_to_completion(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coroutine`` on an event loop of its own, in whatever thread calls.

    A thread with no loop (a research worker, a plain script) runs it right
    here; a thread whose loop is running cannot start a second one, so the
    coroutine runs in a one-off thread while this one waits.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1, thread_name_prefix="signet-tool") as pool:
        return pool.submit(asyncio.run, coroutine).result()


class FunctionTool:
    """A function made a tool by :func:`tool`; calling the object calls the function itself.

    It carries the function's ``__name__``, ``__doc__`` and ``__wrapped__``,
    so ``help()`` and ``inspect`` still see the function.
    """

    __name__: str
    __wrapped__: Callable[..., Any]

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        research: bool = False,
    ) -> None:
        if not (inspect.isfunction(function) or inspect.ismethod(function)):
            raise TypeError(f"@tool takes a function, not {type(function).__name__}")
        label = getattr(function, "__qualname__", repr(function))
        self.function = function
        self.name: str = check_tool_name(name if name is not None else function.__name__)
        self.description: str = description or _first_paragraph(function)
        if not self.description:
            raise TypeError(
                f"@tool {label}: no description; write a docstring or pass description=..."
            )
        self.is_async = inspect.iscoroutinefunction(function)
        self.model, self._parameters = _input_model(function, label, self.name)
        self.input_schema: Mapping[str, Any] = self.model.model_json_schema()
        self._spec = ToolSpec(self.name, self.description, self.input_schema)
        self._turn_parameter = _turn_parameter(self.model, label) if research else None
        self._run_before_generation = research
        functools.update_wrapper(self, function, updated=())

    @property
    def run_before_generation(self) -> bool:
        return self._run_before_generation

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"

    def spec(self) -> ToolSpec:
        return self._spec

    def _arguments(
        self, input: Mapping[str, Any], context: CallContext
    ) -> tuple[list[Any], dict[str, Any]]:
        """Positional and keyword arguments of one call, validated (or a ToolFailure)."""
        validated = validate_input(self.model, self.name, input)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for parameter, field in self._parameters:
            value = context if field is None else getattr(validated, field)
            if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[parameter.name] = value
        return args, kwargs

    def execute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        args, kwargs = self._arguments(input, context)
        if self.is_async:
            return _run_to_completion(self.function(*args, **kwargs))
        return self.function(*args, **kwargs)

    async def aexecute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        args, kwargs = self._arguments(input, context)
        if self.is_async:
            return await self.function(*args, **kwargs)
        return await asyncio.to_thread(functools.partial(self.function, *args, **kwargs))

    def research_input(self, text: str) -> Mapping[str, Any] | None:
        """With ``research=True``: the turn text as the first required ``str`` parameter."""
        if self._turn_parameter is None:
            return None
        alias, field = self._turn_parameter
        value = turn_text(text, self.model.model_fields[field])
        return None if value is None else {alias: value}


def _is_context(annotation: Any) -> bool:
    return annotation is CallContext


def _input_model(
    function: Callable[..., Any], label: str, name: str
) -> tuple[type[BaseModel], list[tuple[inspect.Parameter, str | None]]]:
    """The pydantic model of the function's arguments, and how each parameter is filled.

    Fields are named ``p0``, ``p1`` ... with the parameter's name as alias,
    so a parameter may be called ``schema``, ``json`` or ``model_name``
    without touching pydantic's own attributes; the schema and the errors
    show the parameter's name. The context parameter has no field (None).
    """
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:
        raise TypeError(f"@tool {label}: cannot resolve its annotations: {exc}") from exc
    fields: dict[str, Any] = {}
    parameters: list[tuple[inspect.Parameter, str | None]] = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"@tool {label}: *{parameter.name} has no schema; name each argument")
        if parameter.name not in hints:
            raise TypeError(f"@tool {label}: parameter {parameter.name!r} needs a type annotation")
        annotation = hints[parameter.name]
        if _is_context(annotation):
            parameters.append((parameter, None))
            continue
        field = f"p{len(fields)}"
        if parameter.default is inspect.Parameter.empty:
            fields[field] = (annotation, Field(alias=parameter.name))
        else:
            fields[field] = (annotation, Field(parameter.default, alias=parameter.name))
        parameters.append((parameter, field))
    config = ConfigDict(extra="forbid", json_schema_extra=_drop_titles)
    try:
        model: type[BaseModel] = create_model(f"{name}_input", __config__=config, **fields)
        model.model_json_schema()
    except Exception as exc:
        raise TypeError(f"@tool {label}: no input schema for its signature: {exc}") from exc
    return model, parameters


def _turn_parameter(model: type[BaseModel], label: str) -> tuple[str, str]:
    """(alias, field) of the parameter the turn text goes in; TypeError if the call cannot work."""
    turn: tuple[str, str] | None = None
    for field, info in model.model_fields.items():
        if not info.is_required():
            continue
        alias = info.alias or field
        if turn is None and info.annotation is str:
            turn = (alias, field)
            continue
        raise TypeError(
            f"@tool {label}: research=True fills one str parameter with the turn text; "
            f"{alias!r} is required too (give it a default)"
        )
    if turn is None:
        raise TypeError(
            f"@tool {label}: research=True needs a required str parameter for the turn text"
        )
    return turn


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, research: bool = False
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    research: bool = False,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a function a tool: ``@tool`` or ``@tool(name=..., description=..., research=...)``.

    ``name`` defaults to the function's name, ``description`` to the first
    paragraph of its docstring (one of the two is required: a model picks
    tools by their description). ``research=True`` runs the tool before
    every generation with the user's turn text as its first required
    ``str`` parameter.
    """
    if function is not None:
        return FunctionTool(function)

    def decorate(inner: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(inner, name=name, description=description, research=research)

    return decorate
