"""A harness package's contract vectors, checked without a daemon: ``check_vector``.

A vector is one native event and everything that must follow from it: the
``payload`` the harness sends, the ``calls`` the daemon must receive
(action, method, path and JSON body, as the core builds them), the canned
``answers`` and the native ``output`` the harness must get back (or the
``error`` field a bad payload must be refused on). :func:`check_vector`
runs the event through the one dispatch path with the canned answers and
raises ``AssertionError`` listing every difference; the parity suite sends
the same calls to a daemon as well.

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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from signet_sdk.runtime.dispatch import Dispatched, dispatch
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.wire.config import ClientConfig, resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError, status_error
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.request import build_request

if TYPE_CHECKING:
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
    vectors = []
    for path in plugin.vector_files():
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        data.setdefault("name", Path(path).stem)
        vectors.append(data)
    return vectors


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
    """What differs from the vector, the calls the event made, and the dispatch result."""
    config = config or default_config(plugin)
    payload = vector.get("payload") or {}
    expected_error = vector.get("error")
    calls: list[LifecycleCall] = []
    run = dispatch(plugin.make_translator({}), str(vector["event"]), payload, canned(vector, calls))
    if isinstance(run.error, PayloadError):
        exc = run.error
        if expected_error and expected_error.get("field") == exc.field:
            return [], calls, None
        return [f"translate raised {exc}"], calls, None
    if expected_error:
        return [f"expected PayloadError on {expected_error.get('field')!r}"], calls, None
    problems = []
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
    if got != want:
        problems.append(
            f"requests differ:\n  want {json.dumps(want, sort_keys=True)}\n"
            f"  got  {json.dumps(got, sort_keys=True)}"
        )
    output = run.output.to_wire()
    if output != expected_output(vector):
        problems.append(f"output differs: want {expected_output(vector)!r}, got {output!r}")
    return problems, calls, run


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
