# long module: the scaffold's files are templates, kept together so one read shows the package
"""``signet-sdk new-adapter NAME``: a harness package that installs and passes parity as written.

It writes a small distribution: ``pyproject.toml`` (the ``signet_sdk.adapters``
entry point), the plugin, a translator under 100 lines that imports the core
only through :mod:`signet_sdk.plugin`, one contract vector per event (plus a
refused payload), tests on :mod:`signet_sdk.testing` and a README. Two kinds:

* ``command-hook``: the harness runs ``signet-sdk hook NAME <Event>`` per
  event with JSON on stdin and reads context from stdout
  (``hookSpecificOutput.additionalContext``), as Claude Code, Codex and
  Gemini CLI do;
* ``plugin``: a plugin inside the harness (usually JavaScript) forwards each
  event to ``signet-sdk serve`` and applies the structured answer
  (``{"context": ...}``).

The author then renames events and payload fields to the harness's own and
edits the vectors to match: the tests say at once what no longer agrees.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "register", "scaffold", "translator_source"]

KINDS = ("command-hook", "plugin")
_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")

#: Per kind: native event -> (lifecycle action, deadline class), and the payload's field names.
_EVENTS = {
    "command-hook": {
        "SessionStart": ("session_start", "session_start"),
        "UserPromptSubmit": ("user_prompt_submit", "prompt_submit"),
        "PreCompact": ("pre_compaction", "default"),
        "PostCompact": ("compaction_complete", "default"),
        "SessionEnd": ("session_end", "default"),
    },
    "plugin": {
        "session.start": ("session_start", "session_start"),
        "prompt": ("user_prompt_submit", "prompt_submit"),
        "compaction.before": ("pre_compaction", "default"),
        "compaction.after": ("compaction_complete", "default"),
        "session.end": ("session_end", "default"),
    },
}
_FIELDS = {
    "command-hook": {"session": "session_id", "cwd": "cwd", "source": "source"},
    "plugin": {"session": "sessionId", "cwd": "directory", "source": "source"},
}

_TRANSLATOR = '''"""Translating __TITLE__'s events into Signet lifecycle calls, and answers back.

Pure: no I/O. Each handler is marked with the native event it handles and
that event's deadline class; the plugin's event list is read from those
marks. The core sends the calls a handler returns to the daemon (within the
event's deadline, failing open, writes kept in a durable outbox) and
``render`` shows the model the context the daemon answered for the
``context_events``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from signet_sdk.plugin import __BASE__, LifecycleCall, on, put, string

_TOOLS = "a tool the model calls, not a lifecycle event: the memory tools (signet-sdk mcp)"
#: The contract rows no event of this harness makes, and why (parity reads them).
NOT_APPLICABLE = {
    **dict.fromkeys(("memory-search", "memory-store", "memory-get", "memory-modify"), _TOOLS),
    **dict.fromkeys(("memory-forget", "secret-injection"), _TOOLS),
    "health": "a daemon status check, not a lifecycle event",
}


class Translator(__BASE__):
    """A native event in, lifecycle calls out; the daemon's answers in, native output out."""

    harness = "__NAME__"
    context_events = frozenset({"__E0__", "__E1__"})
    prompt_events = frozenset({"__E1__"})
    not_applicable = NOT_APPLICABLE
__SCOPE__
    @on(__ON0__)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "project", string(p, __CWD__))
        put(body, "source", string(p, __SOURCE__))
        return [LifecycleCall("session_start", body)]

    @on(__ON1__)
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "project", string(p, __CWD__))
        body["userMessage"] = string(p, "prompt", required=True)
        return [LifecycleCall("user_prompt_submit", body)]

    @on(__ON2__)
    def _pre_compaction(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("pre_compaction", {"sessionKey": session})]

    @on(__ON3__)
    def _compaction_complete(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "project", string(p, __CWD__))
        body["summary"] = string(p, "summary", required=True)
        return [LifecycleCall("compaction_complete", body)]

    @on(__ON4__)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "cwd", string(p, __CWD__))
        put(body, "reason", string(p, "reason"))
        put(body, "transcript", string(p, "transcript"))
        return [LifecycleCall("session_end", body)]


TRANSLATOR = Translator()


def translator_for(env: Mapping[str, str]) -> Translator:
    """The translator for any environment (this one reads none)."""
    return TRANSLATOR
'''

#: Per kind: the translator's base class, and how a handler's session is read.
_BASE = {"command-hook": "CommandHookTranslator", "plugin": "EventTranslator"}
_SCOPE = {
    "command-hook": "",  # CommandHookTranslator reads session_id
    "plugin": '''
    def scope(self, payload: Mapping[str, Any]) -> str:
        """The session every event belongs to: ``__SESSION_FIELD__``, required."""
        return string(payload, __SESSION__, required=True) or ""
''',
}

_INIT = '''"""The Signet adapter for __TITLE__: one ``HarnessPlugin``, registered by entry point.

The translator class names the harness, its events and the contract rows it
leaves to others; ``_translate.py`` and ``vectors/`` sit where the plugin
looks for them. An installer goes in ``install.py`` (``main``, taking
``["install" | "uninstall", *args]``); once it registers the memory tools
(``signet-sdk mcp``), say how with ``tools="mcp"`` or ``tools="native"``.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import TRANSLATOR, Translator

__all__ = ["PLUGIN", "TRANSLATOR", "Translator"]

PLUGIN = HarnessPlugin.__FACTORY__(Translator, description="__TITLE__ adapter", tools=None)
'''

_PYPROJECT = """[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "__DIST__"
version = "0.1.0"
description = "Signet memory for __TITLE__: a signet-sdk harness adapter."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["__SDK_RANGE__"]

[project.optional-dependencies]
test = ["pytest>=8"]

[project.entry-points."signet_sdk.adapters"]
__NAME__ = "__MODULE__:PLUGIN"

[tool.hatch.build.targets.wheel]
packages = ["__MODULE__"]

[tool.ruff]
line-length = 100
"""

_TESTS = '''"""The __TITLE__ adapter\'s own tests: vectors, parity column__HOOK_DOC__."""

from __future__ import annotations

import json

from signet_sdk.testing import __TESTING_NAMES__

from __MODULE__ import PLUGIN as SIGNET_PLUGIN


def test_vector(signet_vector: dict[str, object]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def test_parity_has_no_missing_row() -> None:
    assert_parity(SIGNET_PLUGIN.name)
__HOOK_TEST__'''

_CONFTEST = '''"""The SDK's pytest fixtures (``signet_vector``, ``scripted_daemon``, ...).

The plugin is opt-in, so that installing the SDK changes no other project's tests.
"""

pytest_plugins = ["signet_sdk.testing.pytest_plugin"]
'''

_HOOK_TEST = """

def test_a_prompt_through_the_hook_command(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.default = Reply(200, {"inject": "Deploys go out on Tuesdays."})
    payload = {"session_id": "s-1", "cwd": "/work/atlas", "prompt": "how do we deploy?"}
    run = run_hook("__NAME__", "UserPromptSubmit", payload, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stderr) == (0, b"")
    context = "Deploys go out on Tuesdays."
    assert json.loads(run.stdout) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}
    }
    (request,) = scripted_daemon.requests
    assert request.path == "/api/hooks/user-prompt-submit"
    assert request.json == {
        "sessionKey": "s-1",
        "project": "/work/atlas",
        "userMessage": "how do we deploy?",
        "harness": "__NAME__",
        "runtimePath": "legacy",
    }
"""

_PLUGIN_TEST = """

def test_scripted_daemon_is_ready(scripted_daemon: ScriptedDaemon) -> None:
    assert scripted_daemon.url.startswith("http://127.0.0.1:")
    assert json.dumps(scripted_daemon.HEALTH)
"""

_README = """# __DIST__

Signet memory for __TITLE__, as a [signet-sdk](https://pypi.org/project/signetai-sdk/)
harness adapter (kind: __KIND__).

```bash
pip install -e ".[test]"        # from this folder
signet-sdk harnesses            # lists __NAME__
signet-sdk parity __NAME__      # its vectors, and which contract rows it covers
pytest                          # the vectors, the parity column__README_HOOK__
```

`__MODULE__/_translate.py` maps each native event to one lifecycle call
and the daemon's answer back; the vectors under `__MODULE__/vectors/` say,
per event, the exact request the daemon must receive and the output
__TITLE__ must get back. Rename the events and payload fields to
__TITLE__'s own, then change the vectors to match.
"""


def module_name(name: str) -> str:
    return "signet_adapter_" + name.replace("-", "_")


def _title(name: str) -> str:
    return " ".join(part.capitalize() for part in name.split("-"))


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"__{key}__", value)
    return text


def translator_source(name: str, kind: str) -> str:
    """The scaffold's translator for ``name`` (docs/writing-an-adapter.md shows ``acme``)."""
    fields = _FIELDS[kind]
    values = {
        "TITLE": _title(name),
        "NAME": name,
        "BASE": _BASE[kind],
        "SCOPE": _SCOPE[kind],
        "SESSION_FIELD": fields["session"],
        "SESSION": f'"{fields["session"]}"',
        "CWD": f'"{fields["cwd"]}"',
        "SOURCE": f'"{fields["source"]}"',
    }
    for n, (event, (action, deadline)) in enumerate(_EVENTS[kind].items()):
        values[f"E{n}"] = event
        args = [f'"{event}"'] + ([f'"{deadline}"'] if deadline != "default" else [])
        args += ["flushes=True"] if action == "session_start" else []
        args += ["detach=True"] if action == "session_end" and kind == "command-hook" else []
        values[f"ON{n}"] = ", ".join(args)
    return _fill(_TRANSLATOR, values)


def _vectors(name: str, kind: str) -> dict[str, dict[str, Any]]:
    """One vector per event plus a refused payload; what the daemon must receive is spelt out."""
    from signet_sdk.wire.jsonfast import dumps

    events = list(_EVENTS[kind])
    f = _FIELDS[kind]
    path = "legacy" if kind == "command-hook" else "plugin"
    wire = {"harness": name, "runtimePath": path}

    def call(action: str, slug: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "action": action,
            "method": "POST",
            "path": f"/api/hooks/{slug}",
            "body": {**body, **wire},
        }

    def output(event: str, text: str | None) -> dict[str, Any]:
        if text is None:
            return {"data": None, "stdout": "", "exit_code": 0}
        if kind == "command-hook":
            data: Any = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        else:
            data = {"context": text}
        return {"data": data, "stdout": dumps(data), "exit_code": 0}

    session = {f["session"]: "s-1", f["cwd"]: "/work/atlas"}
    remembered = "You remember: atlas deploys go out on Tuesdays."
    recalled = "Deploys go out on Tuesdays, blue-green."
    found = {
        "session-start": (
            events[0],
            {**session, f["source"]: "startup"},
            call(
                "session_start",
                "session-start",
                {"sessionKey": "s-1", "project": "/work/atlas", "source": "startup"},
            ),
            {"inject": remembered, "memories": []},
            remembered,
        ),
        "prompt": (
            events[1],
            {**session, "prompt": "how do we deploy?"},
            call(
                "user_prompt_submit",
                "user-prompt-submit",
                {"sessionKey": "s-1", "project": "/work/atlas", "userMessage": "how do we deploy?"},
            ),
            {"inject": recalled, "memoryCount": 1},
            recalled,
        ),
        "pre-compaction": (
            events[2],
            {f["session"]: "s-1"},
            call("pre_compaction", "pre-compaction", {"sessionKey": "s-1"}),
            {"summaryPrompt": "Summarize this session.", "guidelines": "Keep decisions."},
            None,
        ),
        "compaction-complete": (
            events[3],
            {**session, "summary": "We chose sqlite."},
            call(
                "compaction_complete",
                "compaction-complete",
                {
                    "sessionKey": "s-1",
                    "project": "/work/atlas",
                    "summary": "We chose sqlite.",
                },
            ),
            {"success": True, "memoryId": "m-1"},
            None,
        ),
        "session-end": (
            events[4],
            {**session, "reason": "exit", "transcript": "user: hi\nassistant: hello"},
            call(
                "session_end",
                "session-end",
                {
                    "sessionKey": "s-1",
                    "cwd": "/work/atlas",
                    "reason": "exit",
                    "transcript": "user: hi\nassistant: hello",
                },
            ),
            {"memoriesSaved": 1},
            None,
        ),
    }
    vectors: dict[str, dict[str, Any]] = {}
    for slug, (event, payload, made, answer, text) in found.items():
        vectors[slug] = {
            "name": slug,
            "harness": name,
            "event": event,
            "payload": payload,
            "calls": [made],
            "answers": [{"status": 200, "body": answer}],
            "output": output(event, text),
        }
    vectors["prompt-without-session"] = {
        "name": "prompt-without-session",
        "harness": name,
        "event": events[1],
        "payload": {"prompt": "how do we deploy?"},
        "error": {"field": f["session"]},
        "calls": [],
        "answers": [],
        "output": output(events[1], None),
    }
    return vectors


def _sdk_range() -> str:
    from signet_sdk._version import __version__

    major, minor = (int(p) for p in __version__.split(".")[:2])
    return f"signetai-sdk>={major}.{minor},<{major}.{minor + 1}"


def scaffold(name: str, kind: str, target: Path) -> list[Path]:
    """Write the package for harness ``name`` into ``target``; returns the files written."""
    module = module_name(name)
    command_hook = kind == "command-hook"
    values = {
        "NAME": name,
        "TITLE": _title(name),
        "MODULE": module,
        "DIST": f"signet-adapter-{name}",
        "KIND": kind,
        "SDK_RANGE": _sdk_range(),
        "FACTORY": "command_hooks" if command_hook else "in_harness",
        "HOOK_DOC": ", a hook command run" if command_hook else "",
        "TESTING_NAMES": (
            "Reply, ScriptedDaemon, assert_parity, check_vector, run_hook"
            if command_hook
            else "ScriptedDaemon, assert_parity, check_vector"
        ),
        "HOOK_TEST": _fill(_HOOK_TEST, {"NAME": name}) if command_hook else _PLUGIN_TEST,
        "README_HOOK": ", a prompt through the hook command" if command_hook else "",
    }
    files: dict[str, str] = {
        "pyproject.toml": _fill(_PYPROJECT, values),
        "README.md": _fill(_README, values),
        f"{module}/__init__.py": _fill(_INIT, values),
        f"{module}/_translate.py": translator_source(name, kind),
        f"{module}/py.typed": "",
        f"{module}/vectors/__init__.py": "",
        "tests/conftest.py": _CONFTEST,
        f"tests/test_{module}.py": _fill(_TESTS, values),
    }
    for slug, vector in _vectors(name, kind).items():
        files[f"{module}/vectors/{slug}.json"] = json.dumps(vector, indent=2) + "\n"
    written = []
    for rel, text in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _taken(name: str) -> str | None:
    """Why ``name`` cannot be a new harness's, or None when it is free.

    ``parity`` reports the generic client and the reference runtime under
    their own column names, so an adapter called so would be hidden behind
    them; and a second package for an installed harness makes both fail to
    load (the registry refuses a name claimed by several packages).
    """
    from signet_sdk.runtime.registry import installed_adapters
    from signet_sdk.testing.parity import RUNTIME_COLUMN

    if name == "generic":
        return "'signet-sdk parity' uses it for the generic client's column"
    if name == RUNTIME_COLUMN:
        return "'signet-sdk parity' uses it for the reference runtime's column"
    if name in installed_adapters():
        return (
            "an installed package already provides that harness, and a second one "
            "would make both fail to load"
        )
    return None


def _new_adapter(ns: argparse.Namespace) -> int:
    name: str = ns.name
    if not _NAME.match(name):
        sys.stderr.write(
            f"signet-sdk new-adapter: {name!r} is not a harness name "
            "(lower-case letters and digits, words joined by '-')\n"
        )
        return 2
    taken = _taken(name)
    if taken:
        sys.stderr.write(f"signet-sdk new-adapter: {name!r} is taken: {taken}; pick another name\n")
        return 2
    target = Path(ns.dir or f"signet-adapter-{name}")
    try:
        if target.exists() and not target.is_dir():
            sys.stderr.write(f"signet-sdk new-adapter: --dir {target} is a file, not a folder\n")
            return 2
        if target.exists() and any(target.iterdir()):
            sys.stderr.write(f"signet-sdk new-adapter: {target} exists and is not empty\n")
            return 2
        written = scaffold(name, ns.kind, target)
    except OSError as exc:  # a parent that is a file, a folder we may not write
        where = exc.filename or target
        sys.stderr.write(f"signet-sdk new-adapter: cannot write {where}: {exc.strerror}\n")
        return 1
    sys.stdout.write(f"wrote {len(written)} files under {target}/ ({ns.kind} adapter {name!r})\n")
    sys.stdout.write(f"next: pip install -e '{target}[test]' && signet-sdk parity {name}\n")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "new-adapter",
        help="write a new harness adapter package that passes parity",
        description="Write a harness adapter package: plugin, translator, vectors, tests.",
    )
    p.add_argument("name", help="the harness's name, e.g. acme or my-harness")
    p.add_argument("--kind", choices=KINDS, default="command-hook", help="how the harness calls us")
    p.add_argument("--dir", help="where to write it (default ./signet-adapter-NAME)")
    p.set_defaults(handler=_new_adapter)
