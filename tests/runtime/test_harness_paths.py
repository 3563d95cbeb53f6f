"""A harness's own folder and its transcript roots, as every adapter's ``_paths`` declares them."""

from __future__ import annotations

import os

from signet_sdk.plugin import harness_home, state_dir, transcript_roots_with, user_home


def test_user_home_takes_home_from_the_environment_given() -> None:
    assert user_home({"HOME": " /home/ada "}) == "/home/ada"
    assert user_home({"HOME": "  "}) == os.path.expanduser("~")
    assert user_home({}) == os.path.expanduser("~")


def test_harness_home_is_the_variable_else_a_folder_in_home() -> None:
    env = {"HOME": "/home/ada", "CODEX_HOME": " /srv/codex "}
    assert harness_home(env, "CODEX_HOME", ".codex") == "/srv/codex"
    assert harness_home({"HOME": "/home/ada"}, "CODEX_HOME", ".codex") == "/home/ada/.codex"
    assert harness_home({"HOME": "/home/ada", "CODEX_HOME": " "}, "CODEX_HOME", ".codex") == (
        "/home/ada/.codex"
    )


def test_harness_home_without_a_variable_ignores_every_variable() -> None:
    assert harness_home({"HOME": "/home/ada", "": "/elsewhere"}, None, ".cursor") == (
        "/home/ada/.cursor"
    )


def test_the_value_of_the_variable_is_taken_as_it_is() -> None:
    """Not expanded: the harness reads its variable the same way."""
    assert harness_home({"HOME": "/h", "X_HOME": "~/x"}, "X_HOME", ".x") == "~/x"


def test_transcript_roots_are_the_harness_folders_then_the_users_absolute_ones() -> None:
    extra = os.pathsep.join([" /data/a ", "relative/b", "", "/data/c"])
    env = {"SIGNET_TRANSCRIPT_ROOTS": extra}
    assert transcript_roots_with(env, "/h/one", "/h/two") == [
        "/h/one",
        "/h/two",
        "/data/a",
        "/data/c",
    ]
    assert transcript_roots_with({}, "/h/one") == ["/h/one"]
    assert transcript_roots_with(env) == ["/data/a", "/data/c"]


def test_state_dir_still_sits_in_the_user_home() -> None:
    assert state_dir({"HOME": "/home/ada"}) == "/home/ada/.local/state/signet-sdk"
