"""Contract vectors of the Hermes Agent adapter: one JSON file per hook case."""
