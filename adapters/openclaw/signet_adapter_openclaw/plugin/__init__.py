"""The OpenClaw plugin files the installer copies (package data)."""
