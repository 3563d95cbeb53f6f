"""What a script using the runtime loads: no vendor SDK, and nothing before it is asked for.

Each case runs in a fresh interpreter and reports ``sys.modules``, so a new
import on these paths fails here by name (the time it costs is measured by
``bench/bench_agent.py``; nothing here is timed). Making a provider and an
Agent needs no network: the key is a fake one from an ``env`` dict and the
state folder is never touched before a session opens.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Never loaded by the built-in providers: they send with the SDK's own clients.
VENDOR_SDKS = ("anthropic", "openai", "httpx2")
#: Loaded on first use only, never by ``import signet_sdk.agent`` itself.
LAZY = ("signet_sdk.agent.providers", "aiohttp", "mcp")

_REPORT = "import json, sys\nprint(json.dumps(sorted(sys.modules)))\n"


def _modules_after(code: str, tmp_path: Path) -> set[str]:
    """The modules loaded once ``code`` ran in a fresh interpreter (HOME kept in ``tmp_path``)."""
    env = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code + "\n" + _REPORT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(modules)


def _loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """Which of ``packages`` (or their submodules) are in ``modules``."""
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.mark.parametrize(
    "make",
    [
        "AnthropicProvider('claude-sonnet-4-6', env=env)",
        "OpenAIProvider('gpt-5.4-mini', env=env)",
        "provider_for('anthropic', env=env)",
        "provider_for('openai', env=env)",
    ],
)
def test_a_provider_and_an_agent_load_no_vendor_sdk(make: str, tmp_path: Path) -> None:
    code = (
        "from signet_sdk.agent import Agent, AnthropicProvider, OpenAIProvider, provider_for\n"
        "env = {'ANTHROPIC_API_KEY': 'sk-ant-fake', 'OPENAI_API_KEY': 'sk-fake'}\n"
        f"provider = {make}\n"
        "agent = Agent(provider, env=env, instructions='Be brief.')\n"
        "assert agent.provider is provider\n"
        "assert agent.tools.names, 'the memory tools are offered'\n"
    )
    modules = _modules_after(code, tmp_path)
    assert _loaded(modules, VENDOR_SDKS) == []
    assert "signet_sdk.agent.providers" in modules


def test_the_async_twins_load_no_vendor_sdk(tmp_path: Path) -> None:
    code = (
        "from signet_sdk.agent import Agent, AsyncAnthropicProvider, AsyncOpenAIProvider\n"
        "env = {'ANTHROPIC_API_KEY': 'sk-ant-fake', 'OPENAI_API_KEY': 'sk-fake'}\n"
        "for provider in (AsyncAnthropicProvider('claude-sonnet-4-6', env=env),\n"
        "                 AsyncOpenAIProvider('gpt-5.4-mini', env=env)):\n"
        "    Agent(provider, env=env)\n"
    )
    assert _loaded(_modules_after(code, tmp_path), VENDOR_SDKS) == []


def test_importing_the_package_loads_nothing_it_names(tmp_path: Path) -> None:
    modules = _modules_after("import signet_sdk.agent", tmp_path)
    assert "signet_sdk.agent" in modules
    assert _loaded(modules, LAZY + VENDOR_SDKS) == []


def test_a_name_loads_its_own_module_only(tmp_path: Path) -> None:
    # The value types are the contract every part shares: they come without a provider.
    modules = _modules_after("from signet_sdk.agent import Message, ToolSpec, Usage", tmp_path)
    assert "signet_sdk.agent.types" in modules
    assert _loaded(modules, LAZY + VENDOR_SDKS) == []
