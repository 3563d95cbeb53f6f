"""The end-to-end kit of signet-sdk's own tests: real harnesses, run as users run them.

Not part of the published SDK: what an adapter author needs is in
:mod:`signet_sdk.testing`. This package holds what only this repository's
end-to-end tests use, so that the SDK's wheel does not carry it:

* :func:`npm_binary`: a pinned harness release from the npm registry, cached
  under :func:`npm_cache`, and :func:`npm_node`: a newer Node the same way;
* :func:`harness_world` and :class:`HarnessWorld`: a project, a recording
  daemon (the mock, or a real release behind a proxy) and the environment a
  harness runs in (:meth:`HarnessWorld.run_group`: one headless run), or
  the parts of it: :func:`new_project`, :func:`base_env`;
* :data:`DAEMONS`, :func:`on_every_daemon`, :func:`daemon_of`: a test on the
  mock daemon and on each real release;
* :func:`down_daemon_url` and :func:`silent_daemon`: a daemon that is down,
  one that never answers, and :data:`SHORT_DEADLINES` for the hooks;
* :class:`Terminal`: a harness's interactive UI on a pseudo-terminal;
* :func:`summary_or_reply`: a fake model's answer, the summary when the
  harness asks for a compaction;
* :func:`unavailable` and :func:`in_ci` (a missing prerequisite: a skip, a
  failure under CI), :func:`node_tests`, :func:`project_parent`,
  :func:`remember`, :func:`get_json`, :func:`long_prompt`, :func:`recording_daemon`,
  :func:`hook_requests`, :func:`wait_for_hook`.

Names load on first use, so a test module that needs one pays only for it.
"""

from __future__ import annotations

from signet_sdk import _lazy_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public names: one line each, and the only place they are listed
    from signet_e2e.npm import npm_binary as npm_binary
    from signet_e2e.npm import npm_node as npm_node
    from signet_e2e.real_harness import DAEMONS as DAEMONS
    from signet_e2e.real_harness import daemon_of as daemon_of
    from signet_e2e.real_harness import get_json as get_json
    from signet_e2e.real_harness import hook_requests as hook_requests
    from signet_e2e.real_harness import in_ci as in_ci
    from signet_e2e.real_harness import long_prompt as long_prompt
    from signet_e2e.real_harness import node_tests as node_tests
    from signet_e2e.real_harness import npm_cache as npm_cache
    from signet_e2e.real_harness import on_every_daemon as on_every_daemon
    from signet_e2e.real_harness import project_parent as project_parent
    from signet_e2e.real_harness import recording_daemon as recording_daemon
    from signet_e2e.real_harness import remember as remember
    from signet_e2e.real_harness import summary_or_reply as summary_or_reply
    from signet_e2e.real_harness import unavailable as unavailable
    from signet_e2e.real_harness import wait_for_hook as wait_for_hook
    from signet_e2e.terminal import Terminal as Terminal
    from signet_e2e.unreachable import SHORT_DEADLINES as SHORT_DEADLINES
    from signet_e2e.unreachable import down_daemon_url as down_daemon_url
    from signet_e2e.unreachable import silent_daemon as silent_daemon
    from signet_e2e.world import HarnessWorld as HarnessWorld
    from signet_e2e.world import base_env as base_env
    from signet_e2e.world import harness_world as harness_world
    from signet_e2e.world import new_project as new_project

    __all__: list[str]

# Hidden from type checkers, which read the block: an unknown name is an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_module(__name__)
