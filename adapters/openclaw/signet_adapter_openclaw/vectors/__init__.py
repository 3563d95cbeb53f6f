"""Contract vectors of the OpenClaw adapter (package data)."""
