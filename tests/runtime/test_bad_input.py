"""Every translator of every installed plugin, and the generic one, fed spoiled payloads.

Each example takes a payload a plugin accepts (one of its contract vectors)
and spoils it at one place (:mod:`bad_input_support`): a field of the wrong
type, a huge or awkward string, nesting 10,000 levels deep, a field gone, a
key added, or no object at all. What a harness relies on:

* ``translate`` gives lifecycle calls or raises :class:`PayloadError` naming
  a field; never another exception (``dispatch`` would hide it as a failed
  event, and the harness would lose the event without a word why);
* ``dispatch`` never raises, and when the translator refused the payload the
  output is exactly the plugin's neutral one and nothing was sent;
* whatever it returns can be written out: ``stdout`` text encodes as UTF-8
  and the structured answer as JSON (a lone surrogate a caller hands in may
  come back, escaped by JSON; the hook and the server mend those on reading).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from signet_sdk.plugin import dispatch
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.wire import jsonfast
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.lifecycle import LifecycleCall

from ..bad_input_support import Seed, Spoil, all_plugins, build, seeds, spoil, spoils

PLUGINS = {plugin.name: plugin for plugin in all_plugins()}


def test_every_installed_plugin_is_fed() -> None:
    from signet_sdk.runtime.registry import broken_plugins, installed_adapters

    assert broken_plugins() == []
    assert set(installed_adapters()) | {"unpackaged-harness"} == set(PLUGINS)
    assert all(seeds(plugin) for plugin in PLUGINS.values())


class Recorder:
    """A ``send`` that records each call and answers it with the vector's answers, in order."""

    def __init__(self, answers: Sequence[Any]) -> None:
        self.answers = list(answers)
        self.calls: list[LifecycleCall] = []

    def __call__(self, call: LifecycleCall) -> Any:
        self.calls.append(call)
        return self.answers.pop(0) if self.answers else None


def _check(plugin: HarnessPlugin, seed: Seed, change: Spoil, env: dict[str, str]) -> None:
    payload = spoil(seed.payload, change)
    translator = plugin.make_translator(env)
    neutral = translator.neutral(seed.event)
    assert neutral.exit_code == 0
    try:
        planned = translator.translate(seed.event, payload)
    except PayloadError as exc:
        assert isinstance(exc.field, str) and exc.field, exc
        refused: PayloadError | None = exc
    else:
        refused = None
        assert isinstance(planned, list)
        assert all(isinstance(call, LifecycleCall) for call in planned)

    send = Recorder(seed.answers)
    run = dispatch(translator, seed.event, payload, send)
    event("refused, naming a field" if refused is not None else "translated")
    if refused is not None:
        assert send.calls == []
        assert isinstance(run.error, PayloadError) and str(run.error) == str(refused)
        assert run.output == neutral
    else:
        assert send.calls == planned
        # A rendering that failed is a translator bug the harness would not see.
        assert run.error is None, f"{type(run.error).__name__}: {run.error}"
    # JSON escapes a lone surrogate the caller handed in and a translator echoed;
    # otherwise the output is text a harness can be sent as it is.
    jsonfast.dumps(run.output.to_wire(), ascii_only=True)
    if not _has_lone_surrogate(change):
        run.output.text.encode("utf-8")
        jsonfast.dumps(run.output.to_wire()).encode("utf-8")


def _has_lone_surrogate(change: Spoil) -> bool:
    """Whether the change put in a lone surrogate (hypothesis's own text never holds one)."""
    bad = change.bad
    return bad is not None and bad.kind == "awkward" and "\ud800" in bad.arg


@pytest.mark.parametrize("name", sorted(PLUGINS))
@settings(settings.get_profile("bad-input-translator"))
@given(data=st.data())
def test_a_spoiled_payload_is_refused_by_field_or_translated(
    name: str, data: st.DataObject
) -> None:
    plugin = PLUGINS[name]
    seed = data.draw(st.sampled_from(seeds(plugin)), label="seed")
    change = data.draw(spoils(seed.payload), label="change")
    env = {"HOME": "/nonexistent-home", "XDG_STATE_HOME": "/nonexistent-state"}
    _check(plugin, seed, change, env)


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_an_unknown_event_is_refused_by_field(name: str) -> None:
    plugin = PLUGINS[name]
    translator = plugin.make_translator({})
    for unknown in ("", "no-such-event", "x" * 10_000, "\ud800", "SessionStart\x00"):
        if unknown in plugin.events:
            continue
        run = dispatch(translator, unknown, {}, Recorder(()))
        assert isinstance(run.error, PayloadError) and run.error.field, (unknown, run.error)
        assert run.output == translator.neutral(unknown)
        assert run.calls == []


def test_the_spoilers_reach_their_extremes() -> None:
    """The deep values are as deep as promised, and the huge ones as large."""
    from ..bad_input_support import DEEP, Bad

    deep = build(Bad("deep-list", DEEP))
    depth = 0
    while isinstance(deep, list):
        deep, depth = deep[0], depth + 1
    assert depth == DEEP
    assert len(build(Bad("huge", 1_000_000))) == 1_000_000
