"""The parity suite: every installed adapter over its contract vectors, and who covers what.

For each harness (every ``signet_sdk.adapters`` entry point, plus the
generic adapter) and each vector under ``contract/vectors/<harness>/``:

1. ``translate`` must produce exactly the vector's daemon requests (method,
   path and JSON body, as the sans-I/O core builds them);
2. ``render`` of the vector's canned answers must yield exactly its native
   output (a non-2xx canned answer must yield the fail-open output);
3. the requests are sent to a daemon (the bundled mock by default, or any
   URL), which must accept them with an answer that fits the result model;
   the mock also proves the bytes it received are the bytes we built.

The matrix then marks each dependency-map row and native event of each
harness as covered (a passing vector exercises it), not applicable (the
adapter declares why) or missing: an unexplained gap fails the suite.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._config import resolve_config
from ._contract_export import contract_dir
from ._core import build_request
from ._endpoints import DEPENDENCY_MAP_ROWS, endpoint, endpoint_for_row
from ._exceptions import ConflictError, PayloadError, SignetError
from ._lean import LeanClient
from ._lifecycle import NativeOutput
from ._translator import HarnessTranslator

__all__ = ["ParityReport", "cli_main", "load_vectors", "run_parity", "translators"]

COVERED, NOT_APPLICABLE, MISSING = "covered", "n/a", "missing"


@dataclass
class VectorResult:
    name: str
    event: str
    problems: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class HarnessReport:
    harness: str
    vectors: list[VectorResult]
    rows: dict[str, tuple[str, str]]
    events: dict[str, tuple[str, str]]

    @property
    def ok(self) -> bool:
        cells = [*self.rows.values(), *self.events.values()]
        return all(v.ok for v in self.vectors) and all(s != MISSING for s, _ in cells)


@dataclass
class ParityReport:
    daemon: str
    harnesses: list[HarnessReport]

    @property
    def ok(self) -> bool:
        return all(h.ok for h in self.harnesses)

    def as_dict(self) -> dict[str, Any]:
        return {
            "daemon": self.daemon,
            "ok": self.ok,
            "rows": list(DEPENDENCY_MAP_ROWS),
            "harnesses": {
                h.harness: {
                    "ok": h.ok,
                    "rows": {r: {"status": s, "reason": why} for r, (s, why) in h.rows.items()},
                    "events": {e: {"status": s, "reason": why} for e, (s, why) in h.events.items()},
                    "vectors": [
                        {"name": v.name, "event": v.event, "ok": v.ok, "problems": v.problems}
                        for v in h.vectors
                    ],
                }
                for h in self.harnesses
            },
        }


def translators() -> dict[str, HarnessTranslator]:
    """Every installed adapter's translator, plus the generic one, by harness."""
    from ._harness import GenericTranslator
    from ._registry import _load, installed_adapters

    found: dict[str, HarnessTranslator] = {"generic": GenericTranslator("generic", "plugin")}
    for name in installed_adapters():
        cls = _load(name)
        if cls is not None:
            found[name] = cls.translator
    return found


def load_vectors(harness: str, root: Path | None = None) -> list[dict[str, Any]]:
    folder = (root or contract_dir() / "vectors") / harness
    vectors = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data.setdefault("name", path.stem)
        vectors.append(data)
    return vectors


def _expected_output(vector: Mapping[str, Any]) -> NativeOutput:
    out = vector.get("output") or {}
    return NativeOutput(stdout=out.get("stdout", ""), exit_code=out.get("exit_code", 0))


def _check_vector(
    tr: HarnessTranslator,
    vector: Mapping[str, Any],
    daemon: LeanClient,
    recorded: Callable[[], list[Any]] | None,
) -> VectorResult:
    result = VectorResult(str(vector["name"]), str(vector["event"]))
    payload = vector.get("payload") or {}
    expected_error = vector.get("error")
    try:
        calls = tr.translate(result.event, payload)
    except PayloadError as exc:
        if expected_error and expected_error.get("field") == exc.field:
            return result
        result.problems.append(f"translate raised {exc}")
        return result
    if expected_error:
        result.problems.append(f"expected PayloadError on {expected_error.get('field')!r}")
        return result

    built = [build_request(daemon.config, endpoint(c.action), body=c.body) for c in calls]
    got = [
        {
            "action": c.action,
            "method": r.method,
            "path": urlsplit(r.url).path,
            "body": json.loads(r.content) if r.content else None,
        }
        for c, r in zip(calls, built, strict=True)
    ]
    want = [{k: c.get(k) for k in ("action", "method", "path", "body")} for c in vector["calls"]]
    if got != want:
        result.problems.append(
            f"requests differ:\n  want {json.dumps(want, sort_keys=True)}\n"
            f"  got  {json.dumps(got, sort_keys=True)}"
        )
    result.endpoints = [c.action for c in calls]

    answers = vector.get("answers") or []
    if answers and all(200 <= a.get("status", 200) < 300 for a in answers):
        output = tr.render(result.event, payload, [a.get("body") for a in answers])
    else:
        output = tr.neutral(result.event)
    if output != _expected_output(vector):
        result.problems.append(f"output differs: want {_expected_output(vector)!r}, got {output!r}")

    from ._harness import prepare_transcript

    for call in calls:
        # Send what the adapter would send: harness transcript files staged or left out.
        sent, staged = prepare_transcript(tr, call)
        request = build_request(daemon.config, endpoint(sent.action), body=sent.body)
        mark = len(recorded()) if recorded is not None else 0
        try:
            answer = daemon.call(sent.action, sent.body)
        except ConflictError as exc:
            if exc.claimed_by is None:
                result.problems.append(f"daemon refused {call.action}: {exc}")
            continue
        except SignetError as exc:
            result.problems.append(f"daemon refused {call.action}: {exc}")
            continue
        finally:
            if staged is not None:
                staged.unlink(missing_ok=True)
        problem = _validate_answer(call.action, answer)
        if problem:
            result.problems.append(problem)
        if recorded is not None:
            seen = [r for r in recorded()[mark:] if r.path == urlsplit(request.url).path]
            if not seen or seen[0].body != request.content:
                result.problems.append(f"mock daemon did not receive the built {call.action} bytes")
    return result


def _validate_answer(action: str, answer: Any) -> str | None:
    """A daemon answer must fit its result model (pydantic is fine here: not a hook)."""
    from pydantic import ValidationError

    from . import _models

    model = getattr(_models, endpoint(action).response)
    try:
        model.model_validate(answer)
    except ValidationError as exc:
        return f"{action} answer does not fit {model.__name__}: {exc.errors()[0]['msg']}"
    return None


def _matrix(
    tr: HarnessTranslator, results: list[VectorResult]
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    passing = [r for r in results if r.ok]
    covered_eps = {e for r in passing for e in r.endpoints}
    declared = dict(tr.not_applicable)
    rows: dict[str, tuple[str, str]] = {}
    for row in DEPENDENCY_MAP_ROWS:
        if endpoint_for_row(row).name in covered_eps:
            rows[row] = (COVERED, "")
        elif row in declared:
            rows[row] = (NOT_APPLICABLE, declared[row])
        else:
            rows[row] = (MISSING, "no passing vector calls it and the adapter gives no reason")
    events: dict[str, tuple[str, str]] = {}
    for event in tr.events:
        if any(r.event == event for r in passing):
            events[event] = (COVERED, "")
        elif event in declared:
            events[event] = (NOT_APPLICABLE, declared[event])
        else:
            events[event] = (MISSING, "no passing vector for this native event")
    return rows, events


@contextmanager
def _daemon(daemon_url: str | None) -> Iterator[tuple[str, Any]]:
    if daemon_url:
        yield daemon_url, None
        return
    from .mock_daemon import MockDaemon

    mock = MockDaemon()
    with mock.serve() as handle:
        yield handle.url, mock


def run_parity(daemon_url: str | None = None, harnesses: list[str] | None = None) -> ParityReport:
    """Run every (or the named) adapter's vectors; a fresh mock daemon per harness."""
    reports = []
    label = daemon_url or "bundled mock daemon"
    for name, tr in translators().items():
        if harnesses and name not in harnesses:
            continue
        with _daemon(daemon_url) as (url, mock):
            config = resolve_config(
                url,
                harness=tr.harness,
                runtime_path=tr.runtime_path,  # type: ignore[arg-type]
                max_retries=0,
                env={},
            )
            client = LeanClient(config)
            recorded = (lambda: mock.requests) if mock is not None else None
            results = [_check_vector(tr, v, client, recorded) for v in load_vectors(name)]
        rows, events = _matrix(tr, results)
        reports.append(HarnessReport(name, results, rows, events))
    return ParityReport(label, reports)


def format_table(report: ParityReport) -> str:
    """The matrix as text: one column per harness, one line per row or event."""
    names = [h.harness for h in report.harnesses]
    events = [e for h in report.harnesses for e in h.events]
    width = max([len(r) for r in (*DEPENDENCY_MAP_ROWS, *events)] + [24]) + 2
    col = max([len(n) for n in names] + [9]) + 2
    lines = [f"parity against {report.daemon}", ""]
    lines.append("dependency-map row".ljust(width) + "".join(n.ljust(col) for n in names))
    symbol = {COVERED: "covered", NOT_APPLICABLE: "n/a", MISSING: "MISSING"}
    for row in DEPENDENCY_MAP_ROWS:
        cells = "".join(symbol[h.rows[row][0]].ljust(col) for h in report.harnesses)
        lines.append(row.ljust(width) + cells)
    for h in report.harnesses:
        lines.append("")
        passed = sum(v.ok for v in h.vectors)
        lines.append(f"{h.harness}: {passed}/{len(h.vectors)} vectors pass; native events:")
        for event, (status, why) in h.events.items():
            lines.append(
                f"  {event.ljust(width - 2)}{symbol[status]}" + (f"  ({why})" if why else "")
            )
        for row, (status, why) in h.rows.items():
            if status == NOT_APPLICABLE:
                lines.append(f"  n/a {row}: {why}")
        for v in h.vectors:
            for problem in v.problems:
                lines.append(f"  FAIL {v.name}: {problem}")
    lines.append("")
    lines.append("parity: ok" if report.ok else "parity: FAILED (see MISSING and FAIL above)")
    return "\n".join(lines)


def cli_main(argv: list[str]) -> int:
    """``signet-sdk parity [--json] [--daemon-url URL] [HARNESS ...]``."""
    as_json = "--json" in argv
    url: str | None = None
    names: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--daemon-url":
            url = next(it, None)
        elif arg.startswith("--daemon-url="):
            url = arg.split("=", 1)[1]
        elif arg != "--json":
            names.append(arg)
    report = run_parity(url, names or None)
    text = json.dumps(report.as_dict(), indent=2) if as_json else format_table(report)
    sys.stdout.write(text + "\n")
    return 0 if report.ok else 1
