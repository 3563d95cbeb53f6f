"""Contract vectors of the OpenCode adapter: one JSON file per case."""
