"""Writes the endpoint map to ``contract/endpoints.json``, or checks it has not drifted.

The JSON is what an implementation in another language tests itself
against; the Python table in ``_endpoints`` is its source, so the two can
only disagree when someone forgets to regenerate, which ``--check`` catches.

    python -m signet_sdk.testing.contract          # rewrite the file
    python -m signet_sdk.testing.contract --check  # exit 1 when it differs
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from signet_sdk.wire.config import Timeouts
from signet_sdk.wire.contract_data import contract_dir
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS, ENDPOINTS, endpoint_for_row
from signet_sdk.wire.versions import FIELDS_SINCE, TESTED_VERSIONS

__all__ = ["contract_dir", "endpoint_map", "render"]

_CONFLICT = {
    "409": (
        '409 {"error":"session claimed by <path> path"} when the other runtime '
        "path owns the session"
    ),
    "skip": (
        "TS 0.109: 200 with the route's no-op body plus skipped:true, "
        "duplicateRuntimePath:true, claimedBy; the Rust daemon answers 409"
    ),
    "none": "no session claim is made or checked",
}


def _schema_ref(name: str | None) -> str | None:
    return None if name is None else f"schemas/{name}.json"


def endpoint_map() -> dict[str, Any]:
    defaults = Timeouts()
    rows = []
    for ep in ENDPOINTS:
        rows.append(
            {
                "name": ep.name,
                "method": ep.method,
                "path": ep.path,
                "phase": ep.phase,
                "dependency_map_row": ep.row,
                "request_schema": _schema_ref(ep.request),
                "response_schema": _schema_ref(ep.response),
                "retry_safe": ep.retry_safe,
                "runtime_path_conflict": ep.conflict,
                "sends_runtime_path": ep.sends_runtime_path,
                "timeout_class": ep.timeout,
                "default_timeout_seconds": defaults.for_class(ep.timeout),
                "since": ep.since,
                "request_fields_since": FIELDS_SINCE.get(ep.request or "", {}),
                "response_fields_since": FIELDS_SINCE.get(ep.response, {}),
                "summary": ep.summary,
            }
        )
    return {
        "description": (
            "Signet daemon endpoints as spoken by signet-sdk. 'since' is the oldest "
            "supported daemon release with the route, '*_fields_since' the same for "
            "fields newer than the route; everything else is there since the oldest. "
            "Generated from signet_sdk/wire/endpoints.py and signet_sdk/wire/versions.py; "
            "do not edit by hand."
        ),
        "tested_daemon_versions": list(TESTED_VERSIONS),
        "fields_since": FIELDS_SINCE,
        "runtime_path_conflict": _CONFLICT,
        "dependency_map": [
            {"row": row, "endpoint": endpoint_for_row(row).name} for row in DEPENDENCY_MAP_ROWS
        ],
        "endpoints": rows,
    }


def render() -> str:
    return json.dumps(endpoint_map(), indent=2, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    target = Path(contract_dir()) / "endpoints.json"
    text = render()
    if "--check" in argv:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            sys.stderr.write(
                f"{target} is out of date; run: python -m signet_sdk.testing.contract\n"
            )
            return 1
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
