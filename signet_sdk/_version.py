"""Single source of the package version (read by the user agent and the CLI)."""

__version__ = "0.2.0"
