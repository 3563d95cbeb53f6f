"""Fixtures every test folder shares: the real daemons (``real_daemon``, ``real_daemon_kit``)."""

pytest_plugins = ("signet_sdk.testing.pytest_plugin",)
