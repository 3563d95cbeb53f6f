"""A harness package's contract vectors, checked without a daemon: ``check_vector``.

A vector is one native event and everything that must follow from it: the
``payload`` the harness sends, the ``calls`` the daemon must receive
(action, method, path and JSON body, as the core builds them), the canned
``answers`` and the native ``output`` the harness must get back (or the
``error`` field a bad payload must be refused on). :func:`check_vector`
runs the event through the one dispatch path with the canned answers and
raises ``AssertionError`` listing every difference, including a call body
the client would refuse and a translator that raised (which the harness
would only see as the neutral output); the parity suite sends the same
calls to a daemon as well.

An adapter's own tests need only::

    from signet_sdk.testing import check_vector, load_vectors
    from my_adapter import PLUGIN

    @pytest.mark.parametrize("vector", load_vectors(PLUGIN), ids=vector_id)
    def test_vector(vector):
        check_vector(PLUGIN, vector)

or the ``signet_vector`` fixture of :mod:`signet_sdk.testing.pytest_plugin`.
A command-hook adapter also runs each vector through the real hook command
against a :class:`~signet_sdk.testing.ScriptedDaemon`:
:func:`check_vector_through_hook`; a plugin harness's shim posts to the
adapter server as well: :func:`check_vector_through_server`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from signet_sdk.runtime.dispatch import Dispatched, dispatch
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.wire.config import ClientConfig, resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError, status_error
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleCall
from signet_sdk.wire.request import build_request

if TYPE_CHECKING:
    from signet_sdk.runtime.translator import HarnessTranslator
    from signet_sdk.testing.hook_process import HookRun
    from signet_sdk.testing.scripted import Recorded, ScriptedDaemon
    from signet_sdk.testing.serve_process import ServeProcess

__all__ = [
    "check_vector",
    "check_vector_through_hook",
    "check_vector_through_server",
    "load_vectors",
    "vector_id",
    "vector_problems",
]


def load_vectors(plugin: HarnessPlugin) -> list[dict[str, Any]]:
    """The plugin's vectors, each named after its file when it has no name."""
    return [read_vector(path) for path in plugin.vector_files()]


def read_vector(path: str | Path) -> dict[str, Any]:
    """One vector file, named after the file when it has no name.

    Raises ``ValueError`` naming the file when it is not a JSON object: a bare
    ``JSONDecodeError`` says where in the text, not which of a package's files.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: bad JSON, bad UTF-8
        raise ValueError(f"{path}: not a JSON vector: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a vector is a JSON object, not a {type(data).__name__}")
    data.setdefault("name", path.stem)
    return data


def vector_id(vector: Mapping[str, Any]) -> str:
    """A test id for ``pytest.mark.parametrize(..., ids=vector_id)``."""
    return str(vector.get("name") or vector.get("event"))


def expected_output(vector: Mapping[str, Any]) -> dict[str, Any]:
    out = vector.get("output") or {}
    return {
        "data": out.get("data"),
        "stdout": out.get("stdout", ""),
        "exitCode": out.get("exit_code", 0),
    }


def canned(vector: Mapping[str, Any], made: list[LifecycleCall]) -> Callable[..., Any]:
    """``send`` that records each call and answers from the vector's canned answers."""
    answers = list(vector.get("answers") or [])

    def send(call: LifecycleCall) -> Any:
        made.append(call)
        answer = answers[len(made) - 1] if len(made) <= len(answers) else {}
        status = int(answer.get("status", 200))
        if not 200 <= status < 300:
            raise status_error(
                method="POST", url="canned", status_code=status, body=answer.get("body"), headers={}
            )
        return answer.get("body")

    return send


def default_config(plugin: HarnessPlugin) -> ClientConfig:
    """How the plugin's client is configured when nothing else is set."""
    return resolve_config(
        harness=plugin.name,
        runtime_path=plugin.runtime_path,  # type: ignore[arg-type]
        max_retries=0,
        env={},
    )


def vector_problems(
    plugin: HarnessPlugin, vector: Mapping[str, Any], config: ClientConfig | None = None
) -> tuple[list[str], list[LifecycleCall], Dispatched | None]:
    """What differs from the vector, the calls the event made, and the dispatch result.

    The result is None when nothing should reach a daemon: a refused payload,
    a vector that cannot run, or a call whose body the client would refuse.
    Dispatch fails open on any exception, which is right for a harness but
    would hide a crashing translator from its tests: every exception the
    translator raised, other than the ``PayloadError`` a vector expects, is a
    problem here.
    """
    problems = _shape_problems(vector)
    if problems:
        return problems, [], None
    config = config or default_config(plugin)
    payload = vector.get("payload") or {}
    expected_error = vector.get("error")
    calls: list[LifecycleCall] = []
    watched = _Watched(plugin.make_translator({}))
    try:
        run = dispatch(watched, str(vector["event"]), payload, canned(vector, calls))
    except Exception as exc:  # the fail-open path itself failed (a broken neutral)
        return [*watched.problems, f"dispatch raised {_raised(exc)}"], calls, None
    raised = watched.raised
    if expected_error:
        field = expected_error.get("field")
        if isinstance(raised, PayloadError) and raised.field == field:
            return watched.problems, calls, None
        what = f"the handler raised {_raised(raised)}" if raised else "the payload was accepted"
        return [f"expected PayloadError on {field!r}, but {what}"], calls, None
    if raised is not None:
        problems.append(f"handler raised {_raised(raised)}")
    problems += watched.problems
    refused = [p for p in map(_body_problem, calls) if p]
    problems += refused
    if not refused:
        problems += _request_problems(vector, calls, config)
    if isinstance(run.output, NativeOutput):  # else a problem of ``watched`` says what it is
        output = run.output.to_wire()
        if output != expected_output(vector):
            problems.append(f"output differs: want {expected_output(vector)!r}, got {output!r}")
    return problems, calls, None if raised is not None or refused else run


def _request_problems(
    vector: Mapping[str, Any], calls: list[LifecycleCall], config: ClientConfig
) -> list[str]:
    """The calls as the core builds their requests, against the vector's ``calls``."""
    built = [build_request(config, endpoint(c.action), body=c.body) for c in calls]
    got = [
        {
            "action": c.action,
            "method": r.method,
            "path": urlsplit(r.url).path,
            "body": json.loads(r.content) if r.content else None,
        }
        for c, r in zip(calls, built, strict=True)
    ]
    keys = ("action", "method", "path", "body")
    want = [{k: c.get(k) for k in keys} for c in vector.get("calls") or []]
    if got == want:
        return []
    return [
        f"requests differ:\n  want {json.dumps(want, sort_keys=True)}\n"
        f"  got  {json.dumps(got, sort_keys=True)}"
    ]


def _shape_problems(vector: Mapping[str, Any]) -> list[str]:
    """Why ``vector`` cannot be run at all: no event, or a part of the wrong JSON type."""
    if not isinstance(vector.get("event"), str) or not vector["event"]:
        return ["the vector has no 'event' (the native event name to run)"]
    problems = []
    for key in ("calls", "answers"):
        items = vector.get(key) or []
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            problems.append(f"the vector's {key!r} must be an array of objects")
    for key in ("output", "error"):
        if not isinstance(vector.get(key) or {}, dict):
            problems.append(f"the vector's {key!r} must be an object")
    return problems


def _body_problem(call: LifecycleCall) -> str | None:
    """Why the client would refuse the call's body (``client_sender`` validates it), or None.

    The requests a vector pins are built from the raw body, so a misspelt key
    or a wrong type written into the vector as well used to pass here while
    ``AdapterClient.call_lifecycle`` refused it: the same validation runs here.
    """
    from signet_sdk.client.base import BaseAdapterClient

    model = LIFECYCLE[call.action].params_model
    if not isinstance(call.body, Mapping):
        return f"{call.action} body is a {type(call.body).__name__}, not a {model} object"
    try:
        BaseAdapterClient._lifecycle_params(call)
    except PayloadError as exc:
        detail = str(exc).replace(f"{call.action}: ", "", 1)  # "field: message"
        return f"{call.action} body does not fit {model}, so the client refuses it: {detail}"
    return None


def _raised(exc: BaseException | None) -> str:
    """``KeyError: 'text'``: the class as well, since many messages are only a name."""
    return f"{type(exc).__name__}: {exc}"


class _Watched:
    """The translator, noting what its methods raised or returned wrong.

    ``dispatch`` turns any of that into the neutral output, as a harness
    needs; a vector check needs to see it. ``raised`` is what ``translate``
    (the event's handler) raised, ``problems`` what ``render``, ``neutral``
    or ``fail_open`` did wrong.
    """

    def __init__(self, inner: HarnessTranslator) -> None:
        self.inner = inner
        self.raised: Exception | None = None
        self.problems: list[str] = []

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        try:
            calls = self.inner.translate(event, payload)
            if not isinstance(calls, list | tuple):
                raise TypeError(f"translate returned a {type(calls).__name__}, not a list")
            for call in calls:
                if not isinstance(call, LifecycleCall):
                    raise TypeError(f"translate returned a {type(call).__name__} call: {call!r}")
        except Exception as exc:
            self.raised = exc
            raise
        return list(calls)

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        return self._output("render", self.inner.render, event, payload, results)

    def neutral(self, event: str) -> NativeOutput:
        return self._output("neutral", self.inner.neutral, event)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)  # fail_open, where the translator has it
        if name != "fail_open":
            return method
        return lambda *args: self._output("fail_open", method, *args)

    def _output(self, name: str, method: Callable[..., Any], *args: Any) -> NativeOutput:
        try:
            output = method(*args)
        except Exception as exc:
            self.problems.append(f"{name} raised {_raised(exc)}")
            raise
        if not isinstance(output, NativeOutput):
            self.problems.append(
                f"{name} returned a {type(output).__name__}, not a NativeOutput"
                + (" (context_output must return one too)" if name == "render" else "")
            )
        return output  # type: ignore[no-any-return]


def check_vector(plugin: HarnessPlugin, vector: Mapping[str, Any]) -> None:
    """Raise ``AssertionError`` naming every way the plugin's event differs from the vector."""
    problems, _, _ = vector_problems(plugin, vector)
    if problems:
        name = vector_id(vector)
        raise AssertionError(f"vector {name!r} ({vector.get('event')}):\n" + "\n".join(problems))


def check_vector_through_hook(
    plugin: HarnessPlugin,
    vector: Mapping[str, Any],
    daemon: ScriptedDaemon,
    *,
    payload: Mapping[str, Any] | None = None,
    transcript: Path | None = None,
) -> HookRun:
    """Run the vector through ``signet-sdk hook <harness> <event>`` as the harness would.

    :func:`check_vector` proves the translation; this proves the installed
    command around it: ``daemon`` replays the vector's answers, the command
    must print exactly the vector's stdout (bytes), nothing on stderr, exit
    with its code and leave no write in the outbox, and the daemon must
    receive the vector's calls (:func:`~signet_sdk.testing.assert_received`,
    with the plugin's runtime path, no ``x-signet-no-hooks``, each body
    exactly the call's: none resent from the outbox). ``payload``
    replaces the vector's. ``transcript``: a real file for the payload's
    ``transcript_path`` (where it names one), whose bytes the staged copy
    must have held when each request arrived; a staged copy must be gone
    afterwards. Returns the run.
    """
    from signet_sdk.testing.hook_process import run_hook
    from signet_sdk.testing.scripted import Reply

    sent = dict(vector["payload"] if payload is None else payload)
    staged = None
    if transcript is not None and sent.get("transcript_path"):
        sent["transcript_path"], staged = str(transcript), transcript.read_bytes()
    daemon.replies = [Reply(a["status"], a["body"]) for a in vector.get("answers") or []]
    run = run_hook(plugin.name, str(vector["event"]), sent, daemon_url=daemon.url)
    want = expected_output(vector)
    assert (run.returncode, run.stderr) == (want["exitCode"], b""), run.stderr
    assert run.stdout == str(want["stdout"]).encode("utf-8")
    got = _received(plugin, vector, daemon, staged, None)
    for request in got:
        copy = request.json.get("transcriptPath")
        assert copy is None or not Path(copy).exists()  # the staged copy is removed
    return run


def check_vector_through_server(
    plugin: HarnessPlugin,
    vector: Mapping[str, Any],
    daemon: ScriptedDaemon,
    server: ServeProcess,
    *,
    payload: Mapping[str, Any] | None = None,
    staged: bytes | None = None,
) -> dict[str, Any]:
    """Post the vector to a running adapter server as a plugin harness's shim does.

    ``server`` (a :class:`~signet_sdk.testing.ServeProcess` whose daemon is
    ``daemon``) gets the vector's event on ``/v1/<harness>/events/<event>``;
    ``daemon`` replays the vector's answers. A refused payload must answer
    no ``data``, name the field in ``degraded`` and reach no daemon;
    otherwise the answer must carry the vector's ``data`` and exit code, the
    server's outbox must drain (detached writes delivered) and the daemon
    must receive the vector's calls as :func:`check_vector_through_hook`
    requires them. ``payload`` replaces the vector's; ``staged``: the bytes a
    staged transcript must have held. Returns the server's answer.
    """
    from signet_sdk.testing.scripted import Reply

    daemon.script([Reply(a["status"], a["body"]) for a in vector.get("answers") or []])
    sent = vector["payload"] if payload is None else payload
    answer = server.post(str(vector["event"]), sent, harness=plugin.name)
    if "error" in vector:
        assert answer["data"] is None, answer
        assert vector["error"]["field"] in answer["degraded"], answer
        assert daemon.requests == []
        return answer
    want = expected_output(vector)
    assert (answer["data"], answer["exitCode"]) == (want["data"], want["exitCode"]), answer
    _received(plugin, vector, daemon, staged, server.env)
    return answer


def _received(
    plugin: HarnessPlugin,
    vector: Mapping[str, Any],
    daemon: ScriptedDaemon,
    staged: bytes | None,
    env: Mapping[str, str] | None,
) -> list[Recorded]:
    """What ``daemon`` received for the vector, once the outbox under ``env`` has drained."""
    from signet_sdk.testing.hook_process import outbox_left
    from signet_sdk.testing.scripted import assert_received

    calls = vector.get("calls") or []
    got = daemon.wait_for(len(calls))
    assert outbox_left(env=env) == []
    assert_received(got, calls, staged=staged, runtime_path=plugin.runtime_path)
    for request, call in zip(got, calls, strict=True):
        assert "x-signet-no-hooks" not in request.headers
        # Sent by the hook itself, not resent from the outbox with its entry id.
        assert "idempotencyKey" in call["body"] or "idempotencyKey" not in request.json
    return got
