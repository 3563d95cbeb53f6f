"""JSON Schemas of every body model, generated, and a check that they are current.

The schemas in ``contract/schemas`` let tools outside Python (a mock daemon,
another language's client, a reviewer's diff) see the wire contract without
reading pydantic. They are derived from the models, never edited by hand,
and the test command fails when a model changed but its schema was not
regenerated::

    python -m signet_sdk.models.schemas            # regenerate contract/schemas
    python -m signet_sdk.models.schemas --check    # exit 1 and name what drifted

Every schema uses the wire (alias) names and ``mode="validation"``: for a
request that is what the model lets a caller send, for a response it is what
the SDK accepts from a daemon (optional fields, unknown keys allowed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

import signet_sdk.models as _models
from signet_sdk.models import RequestModel, ResponseModel, SignetModel
from signet_sdk.wire.contract_data import contract_dir

__all__ = ["DEFAULT_DIR", "check_schemas", "generate_schemas", "write_schemas"]

#: ``contract/schemas`` at the repository root, next to the package.
DEFAULT_DIR = Path(contract_dir()) / "schemas"

_BASES = (SignetModel, RequestModel, ResponseModel)
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _WireSchema(GenerateJsonSchema):
    """Drops per-property titles: derived from the camelCase alias they read as
    ``"Sessionkey"``, which is noise next to the property name itself."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False


def _models_to_publish() -> dict[str, type[BaseModel]]:
    out: dict[str, type[BaseModel]] = {}
    for name in _models.__all__:
        obj = getattr(_models, name)
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj not in _BASES:
            out[name] = obj
    return dict(sorted(out.items()))


def generate_schemas() -> dict[str, dict[str, Any]]:
    """Model name -> JSON Schema (wire names, validation mode), sorted by name."""
    schemas: dict[str, dict[str, Any]] = {}
    for name, model in _models_to_publish().items():
        schema = model.model_json_schema(
            by_alias=True, mode="validation", schema_generator=_WireSchema
        )
        schemas[name] = {"$schema": _DIALECT, **schema}
    return schemas


def _render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path = DEFAULT_DIR) -> list[Path]:
    """Write ``<ModelName>.json`` for every model; remove schemas of models that are gone.

    Files are rewritten only when their text changes, so an unchanged tree
    keeps its timestamps. Returns the paths written.
    """
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    schemas = generate_schemas()
    written: list[Path] = []
    for name, schema in schemas.items():
        path = target / f"{name}.json"
        text = _render(schema)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    for stale in target.glob("*.json"):
        if stale.stem not in schemas:
            stale.unlink()
    return written


def _drift(directory: Path) -> dict[str, str]:
    schemas = generate_schemas()
    found = {p.stem: p for p in directory.glob("*.json")} if directory.is_dir() else {}
    problems: dict[str, str] = {}
    for name, schema in schemas.items():
        path = found.get(name)
        if path is None:
            problems[name] = "missing"
        elif path.read_text(encoding="utf-8") != _render(schema):
            problems[name] = "drifted"
    for name in found.keys() - schemas.keys():
        problems[name] = "extra"
    return dict(sorted(problems.items()))


def check_schemas(directory: str | Path = DEFAULT_DIR) -> list[str]:
    """Names whose schema file is missing, out of date, or has no model; empty when current."""
    return list(_drift(Path(directory)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m signet_sdk.models.schemas",
        description="Generate (or with --check, verify) the JSON Schemas of the body models.",
    )
    parser.add_argument("--check", action="store_true", help="verify only; exit 1 on drift")
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    directory: Path = args.directory
    if args.check:
        problems = _drift(directory)
        for name, kind in problems.items():
            sys.stderr.write(f"{kind}: {directory / (name + '.json')}\n")
        if problems:
            sys.stderr.write("schemas are out of date; run: python -m signet_sdk.models.schemas\n")
            return 1
        sys.stdout.write(f"{len(generate_schemas())} schemas up to date in {directory}\n")
        return 0
    written = write_schemas(directory)
    sys.stdout.write(f"wrote {len(written)} schema(s) to {directory}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
