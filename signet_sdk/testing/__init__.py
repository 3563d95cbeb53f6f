"""Testing aids for this SDK and for anyone writing a harness adapter.

What an adapter package's own tests need, importable from here:

* :func:`load_vectors`, :func:`check_vector`, :func:`vector_id`: the
  package's contract vectors, each checked without a daemon (the requests
  the event makes, the output the harness gets back), and
  :func:`check_vector_through_hook` / :func:`check_vector_through_server`:
  one run through the real hook command, or through ``signet-sdk serve``;
* :func:`private_home`: a test's own HOME and state directory, no SIGNET_*
  (or the harness's) variables from outside; :func:`write_jsonl`: a
  session file in it, as harnesses write them;
* :func:`assert_parity`: the package's parity column, with no MISSING row,
  against the bundled mock daemon (or a daemon URL);
* :class:`ScriptedDaemon`, :class:`Reply`, :class:`Recorded`: a daemon on
  127.0.0.1 answering from a script and recording what it received, and
  :func:`assert_received` to hold that to a vector's calls;
* :func:`run_hook`, :class:`HookRun`, :func:`hook_command`,
  :func:`outbox_left`, :func:`outbox_entries`, :func:`hook_log_lines`,
  :func:`sdk_state_dir`: a hook command run as a harness runs it, and what
  it left behind;
* :class:`ServeProcess`: ``signet-sdk serve`` as a child process, and
  :func:`stop_process`: any child stopped by its PID (SIGTERM, then SIGKILL);
* :class:`FakeServer`, :data:`Answer`, :func:`json_answer`,
  :func:`sse_answer`: a loopback stand-in for a harness's model API;
* :func:`free_port`: a free loopback port;
* :class:`MockDaemon`: the faithful mock daemon, in-process or served;
* :class:`RecordingProxy`, :class:`DaemonKit`, :class:`RealDaemon`: the
  real Signet daemons, and what they received.

The pytest plugin :mod:`signet_sdk.testing.pytest_plugin` adds fixtures on
top (``scripted_daemon``, ``signet_vector``, ``real_daemon``); it is opt-in,
one line in a ``conftest.py``::

    pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

so installing the SDK changes no other project's test run. Names load on
first use, so importing this package costs nothing.
"""

from __future__ import annotations

from signet_sdk import _lazy_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public names: one line each, and the only place they are listed
    from signet_sdk.testing.environment import private_home as private_home
    from signet_sdk.testing.environment import write_jsonl as write_jsonl
    from signet_sdk.testing.fake_server import Answer as Answer
    from signet_sdk.testing.fake_server import FakeServer as FakeServer
    from signet_sdk.testing.fake_server import json_answer as json_answer
    from signet_sdk.testing.fake_server import sse_answer as sse_answer
    from signet_sdk.testing.hook_process import HookRun as HookRun
    from signet_sdk.testing.hook_process import hook_command as hook_command
    from signet_sdk.testing.hook_process import hook_log_lines as hook_log_lines
    from signet_sdk.testing.hook_process import outbox_entries as outbox_entries
    from signet_sdk.testing.hook_process import outbox_left as outbox_left
    from signet_sdk.testing.hook_process import run_hook as run_hook
    from signet_sdk.testing.hook_process import sdk_state_dir as sdk_state_dir
    from signet_sdk.testing.mock_daemon import MockDaemon as MockDaemon
    from signet_sdk.testing.parity import assert_parity as assert_parity
    from signet_sdk.testing.real_daemon import DaemonKit as DaemonKit
    from signet_sdk.testing.real_daemon import RealDaemon as RealDaemon
    from signet_sdk.testing.real_daemon import free_port as free_port
    from signet_sdk.testing.recording_proxy import RecordingProxy as RecordingProxy
    from signet_sdk.testing.scripted import Recorded as Recorded
    from signet_sdk.testing.scripted import Reply as Reply
    from signet_sdk.testing.scripted import ScriptedDaemon as ScriptedDaemon
    from signet_sdk.testing.scripted import assert_received as assert_received
    from signet_sdk.testing.serve_process import ServeProcess as ServeProcess
    from signet_sdk.testing.serve_process import stop_process as stop_process
    from signet_sdk.testing.vectors import check_vector as check_vector
    from signet_sdk.testing.vectors import check_vector_through_hook as check_vector_through_hook
    from signet_sdk.testing.vectors import (
        check_vector_through_server as check_vector_through_server,
    )
    from signet_sdk.testing.vectors import load_vectors as load_vectors
    from signet_sdk.testing.vectors import vector_id as vector_id

    __all__: list[str]

# Hidden from type checkers, which read the block: an unknown name is an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_module(__name__)
