"""A harness plugin: everything one harness package gives the core, in one object.

A harness distribution registers exactly one entry point in the
``signet_sdk.adapters`` group whose value is a :class:`HarnessPlugin`. The
object is built from plain data so that loading it costs a hook process
almost nothing: its translator, installer, vectors and shim files are named
here and loaded only when a path needs them.
"""

from __future__ import annotations

import os
import sys

from signet_sdk.wire.record import KW_ONLY, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from signet_sdk.runtime.handlers import EventTranslator
    from signet_sdk.runtime.translator import HarnessTranslator

__all__ = ["TIMEOUT_CLASSES", "EventSpec", "HarnessPlugin"]

#: The endpoint map's timeout classes an event's deadline can follow.
TIMEOUT_CLASSES = ("session_start", "prompt_submit", "default")


class EventSpec(Record):
    """One native event: its deadline class and how a short-lived process treats it.

    ``timeout_class`` picks the budget (``SIGNET_SESSION_START_TIMEOUT``,
    ``SIGNET_PROMPT_SUBMIT_TIMEOUT`` or ``SIGNET_FETCH_TIMEOUT``).
    ``detach``: the harness kills this hook early, so its writes only go to
    the outbox and a detached sender. ``flushes``: older pending writes are
    sent again when this event runs (a session start after a daemon outage).
    """

    name: str
    timeout_class: str = "default"
    _: KW_ONLY
    detach: bool = False
    flushes: bool = False

    def __post_init__(self) -> None:
        if self.timeout_class not in TIMEOUT_CLASSES:
            raise ValueError(f"timeout_class must be one of {', '.join(TIMEOUT_CLASSES)}")


def _load_ref(ref: str) -> Any:
    """``package.module:attribute`` -> the attribute, imported on demand."""
    module, _, attr = ref.partition(":")
    # ``__import__`` plus ``sys.modules`` is ``importlib.import_module`` for an
    # absolute name, without loading the importlib package (and warnings).
    __import__(module)
    obj = sys.modules[module]
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


#: Where a harness package keeps each part by convention: file or folder -> (field, reference).
_CONVENTION = (
    ("_translate.py", "translator", "{}._translate:translator_for"),
    ("_paths.py", "transcript_roots", "{}._paths:transcript_roots"),
    ("install.py", "installer", "{}.install:main"),
    ("vectors", "vectors", "{}.vectors"),
    ("shim", "shims", "{}.shim"),
    ("_story.py", "story", "{}._story:story_event"),
)


def _by_convention(package: str) -> dict[str, str]:
    """The parts ``package`` holds where the convention puts them (``os`` only: hook path)."""
    module = sys.modules.get(package)
    where = getattr(module, "__file__", None)
    if not where:
        return {}
    folder = os.path.dirname(where)
    present = set(os.listdir(folder))
    return {field: ref.format(package) for name, field, ref in _CONVENTION if name in present}


class HarnessPlugin:
    """What a harness package registers: translator, events, installer, vectors, shims.

    ``package=__name__`` fills in what the package keeps where the convention
    puts it (``_translate.py`` with ``translator_for(env)``, ``_paths.py``
    with ``transcript_roots(env)``, ``install.py`` with ``main``, the
    ``vectors/`` and ``shim/`` folders, ``_story.py`` with ``story_event``);
    an argument given explicitly wins.

    ``translator`` is a translator object or ``"module:factory"``, where the
    factory takes the process environment (a command hook's translator may
    read e.g. ``CLAUDE_PROJECT_DIR``). ``installer`` is ``"module:main"`` for
    a function taking ``["install" | "uninstall", *args]`` and returning an
    exit code. ``vectors`` and ``shims`` name a package whose directory holds
    the contract vectors (``*.json``) or the files a plugin harness loads
    (``contract:<path>`` names a folder of the core's contract data).
    ``story`` is ``"module:function"`` giving the demo's steps as native
    events. ``transcript_roots`` is ``"module:function"`` taking the
    environment and returning the directories a transcript path may be read
    from; without it, no transcript file is read. ``tools`` says how the
    harness's model reaches the memory tools: ``"mcp"`` (its installer
    registers ``signet-sdk mcp``), ``"native"`` (its shim registers them
    through the harness's plugin API) or None.
    """

    def __init__(
        self,
        name: str,
        *,
        translator: HarnessTranslator | str | None = None,
        events: Sequence[EventSpec | str],
        runtime_path: str | None = None,
        not_applicable: Mapping[str, str] | None = None,
        transcript_roots: str | None = None,
        installer: str | None = None,
        vectors: str | None = None,
        shims: str | None = None,
        story: str | None = None,
        package: str | None = None,
        tools: str | None = None,
        description: str = "",
    ) -> None:
        if not name or not isinstance(name, str):
            raise ValueError("HarnessPlugin name must be a non-empty string")
        if runtime_path not in (None, "plugin", "legacy"):
            raise ValueError("runtime_path must be 'plugin', 'legacy' or None")
        if tools not in (None, "mcp", "native"):
            raise ValueError("tools must be 'mcp', 'native' or None")
        self.name = name
        self.runtime_path = runtime_path
        self.description = description
        self.not_applicable: Mapping[str, str] = dict(not_applicable or {})
        specs = [e if isinstance(e, EventSpec) else EventSpec(e) for e in events]
        self.events: dict[str, EventSpec] = {e.name: e for e in specs}
        if package is not None:
            found = _by_convention(package)
            translator = translator or found.get("translator")
            transcript_roots = transcript_roots or found.get("transcript_roots")
            installer = installer or found.get("installer")
            vectors = vectors or found.get("vectors")
            shims = shims or found.get("shims")
            story = story or found.get("story")
        if translator is None:
            raise ValueError("HarnessPlugin needs a translator (or a package with _translate.py)")
        self._translator = translator
        #: The class :meth:`of_translator` was given; what is made must be one.
        self._translator_class: type[EventTranslator] | None = None
        self._transcript_roots = transcript_roots
        self.installer = installer
        self.vectors = vectors
        self.shims = shims
        self.story = story
        #: How the harness's model reaches the memory tools: "mcp", "native" or None.
        self.tools = tools
        #: Set by the registry: the distribution this plugin came from.
        self.distribution: str | None = None
        self.version: str | None = None

    @classmethod
    def command_hooks(
        cls, translator: type[EventTranslator], *, description: str, tools: str | None = "mcp"
    ) -> HarnessPlugin:
        """The plugin of a harness that runs ``signet-sdk hook <name> <event>`` per event.

        Its runtime path is ``legacy`` and its model reaches the memory tools
        over MCP unless ``tools`` says otherwise (None: it has no way yet). The rest comes from
        :meth:`of_translator`.
        """
        return cls.of_translator(translator, "legacy", tools, description)

    @classmethod
    def in_harness(
        cls,
        translator: type[EventTranslator],
        *,
        description: str,
        tools: str | None = "native",
        shims: str | None = None,
    ) -> HarnessPlugin:
        """The plugin of a harness that loads our code (a shim, a memory provider) itself.

        Its runtime path is ``plugin`` and it registers the memory tools
        through the harness's own plugin API unless ``tools`` says otherwise
        (None: it has no way yet).
        The rest comes from :meth:`of_translator`.
        """
        return cls.of_translator(translator, "plugin", tools, description, shims)

    @classmethod
    def of_translator(
        cls,
        translator: type[EventTranslator],
        runtime_path: str,
        tools: str | None,
        description: str,
        shims: str | None = None,
    ) -> HarnessPlugin:
        """The plugin whose translator class is ``translator``.

        The class says the name (``harness``), the events and the rows it does
        not cover (``not_applicable``); the package it sits in gives the other
        parts by convention (``package=``). The translator itself is the
        class's own module's ``translator_for(env)`` when that module has one
        (a translator built for the environment), else an instance of the
        class; either way it must be an instance of ``translator``, which
        :meth:`make_translator` checks, so the events declared and the events
        translated cannot come from two different classes.
        """
        module = sys.modules.get(translator.__module__)
        made: HarnessTranslator | str = (
            f"{translator.__module__}:translator_for"
            if callable(getattr(module, "translator_for", None))
            else translator()
        )
        plugin = cls(
            translator.harness,
            translator=made,
            package=translator.__module__.rpartition(".")[0],
            events=translator.events,
            runtime_path=runtime_path,
            not_applicable=translator.not_applicable,
            shims=shims,
            tools=tools,
            description=description,
        )
        plugin._translator_class = translator
        return plugin

    def __repr__(self) -> str:
        return f"HarnessPlugin({self.name!r}, events={list(self.events)!r})"

    def make_translator(self, env: Mapping[str, str] | None = None) -> HarnessTranslator:
        """The translator, built for ``env`` (default: this process's environment)."""
        tr = self._translator
        if isinstance(tr, str):
            made: HarnessTranslator = _load_ref(tr)(os.environ if env is None else env)
            wanted = self._translator_class
            if wanted is not None and not isinstance(made, wanted):
                raise TypeError(
                    f"{tr} made a translator of class {type(made).__name__}; the "
                    f"{self.name!r} plugin declares its events with {wanted.__name__}"
                )
            return made
        return tr

    def transcript_roots(self, env: Mapping[str, str] | None = None) -> list[str] | None:
        """Directories a transcript path may resolve into; None when it reads none."""
        if self._transcript_roots is None:
            return None
        roots = _load_ref(self._transcript_roots)(os.environ if env is None else env)
        return [str(r) for r in roots]

    def load_installer(self) -> Callable[[list[str]], int] | None:
        """The installer's entry function, or None when the harness needs no install."""
        return None if self.installer is None else _load_ref(self.installer)

    def story_event(self, step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
        """The demo's story step as this harness's native event, or None to skip it."""
        if self.story is None:
            return None
        return _load_ref(self.story)(step, ctx)  # type: ignore[no-any-return]

    def _package_dir(self, package: str | None) -> str | None:
        if package is None:
            return None
        if package.startswith("contract:"):
            from signet_sdk.wire.contract_data import contract_dir

            return os.path.join(contract_dir(), *package[len("contract:") :].split("/"))
        from importlib.util import find_spec

        spec = find_spec(package)
        locations = list(spec.submodule_search_locations or []) if spec else []
        return locations[0] if locations else None

    def vector_files(self) -> list[str]:
        """The plugin's contract vectors, sorted by file name."""
        folder = self._package_dir(self.vectors)
        if folder is None:
            return []
        return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json"))

    def shim_dir(self) -> str | None:
        """The directory holding the files a plugin harness loads, if any."""
        return self._package_dir(self.shims)
