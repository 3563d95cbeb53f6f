"""Contract vectors of the pi adapter: one JSON file per case (package data)."""
