"""``HarnessPlugin.command_hooks(Translator)``: events declared and translated by one class.

The class given says the events; the translator the hook runs must be that
class too. A package whose ``translator_for`` builds another class, or a
class kept outside ``_translate.py``, used to declare one class's events and
translate with another's.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.plugin import HarnessPlugin

HANDLERS = """
from signet_sdk.plugin import EventTranslator, LifecycleCall, on


class {name}(EventTranslator):
    harness = "acme"

    def scope(self, payload):
        return "s"

    @on("{event}")
    def _handle(self, payload, scope):
        return [LifecycleCall("session_end", {{"sessionKey": scope}})]
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty ``acme_adapter`` package on ``sys.path``, forgotten afterwards."""
    root = tmp_path / "acme_adapter"
    root.mkdir()
    (root / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m.split(".")[0] == "acme_adapter"]:
        del sys.modules[name]


def test_a_class_outside_translate_py_is_the_translator(package: Path) -> None:
    # _translate.py builds an older class; the plugin is declared with the one in _events.py.
    (package / "_translate.py").write_text(
        HANDLERS.format(name="Old", event="end") + "\ndef translator_for(env):\n    return Old()\n"
    )
    (package / "_events.py").write_text(HANDLERS.format(name="New", event="stop"))
    new = importlib.import_module("acme_adapter._events").New
    plugin = HarnessPlugin.command_hooks(new, description="acme")
    translator = plugin.make_translator({})
    assert type(translator) is new
    assert list(plugin.events) == ["stop"]
    assert [c.action for c in translator.translate("stop", {})] == ["session_end"]


def test_the_class_modules_translator_for_builds_it_for_the_environment(package: Path) -> None:
    (package / "_translate.py").write_text(
        HANDLERS.format(name="Acme", event="end")
        + "\ndef translator_for(env):\n"
        + "    made = Acme()\n    made.env = dict(env)\n    return made\n"
    )
    acme = importlib.import_module("acme_adapter._translate").Acme
    translator = HarnessPlugin.command_hooks(acme, description="acme").make_translator({"A": "1"})
    assert type(translator) is acme and translator.env == {"A": "1"}  # type: ignore[attr-defined]


def test_a_translator_for_that_builds_another_class_is_refused_naming_both(
    package: Path,
) -> None:
    (package / "_translate.py").write_text(
        HANDLERS.format(name="Old", event="end")
        + HANDLERS.format(name="New", event="stop")
        + "\ndef translator_for(env):\n    return Old()\n"
    )
    new = importlib.import_module("acme_adapter._translate").New
    plugin = HarnessPlugin.in_harness(new, description="acme")
    with pytest.raises(TypeError) as caught:
        plugin.make_translator({})
    assert str(caught.value) == (
        "acme_adapter._translate:translator_for made a translator of class Old; "
        "the 'acme' plugin declares its events with New"
    )
