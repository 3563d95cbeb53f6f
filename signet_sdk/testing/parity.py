"""The parity suite: every installed adapter over its contract vectors, and who covers what.

For each harness (every plugin in the ``signet_sdk.adapters`` group, plus
the generic one) and each vector the plugin ships:

1. the event, run through :func:`~signet_sdk.runtime.dispatch.dispatch`
   with the vector's canned answers, must make exactly the vector's daemon
   requests (method, path and JSON body, as the sans-I/O core builds them);
2. and must yield exactly its native output, data and bytes (a non-2xx
   canned answer must yield the fail-open output);
3. the requests are sent to a daemon (the bundled mock by default, or any
   URL), which must accept them with an answer that fits the result model;
   the mock also proves the bytes it received are the bytes we built.

The matrix then marks each dependency-map row and native event of each
harness as covered (a passing vector exercises it), not applicable (the
adapter declares why) or missing: an unexplained gap fails the suite.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.testing.parity_tools import TOOL_PATHS, TOOL_ROWS, NotExercised, exercise_tools
from signet_sdk.testing.vectors import load_vectors, read_vector, vector_problems
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS, endpoint, endpoint_for_row
from signet_sdk.wire.errors import ConflictError, SignetError
from signet_sdk.wire.lean import LeanClient
from signet_sdk.wire.request import build_request

__all__ = ["ParityReport", "assert_parity", "load_vectors", "plugins", "run_parity"]

COVERED, NOT_APPLICABLE, MISSING = "covered", "n/a", "missing"
#: The reference runtime's column (:mod:`signet_sdk.testing.parity_runtime`).
RUNTIME_COLUMN = "runtime"


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
    #: What kept the harness from being checked at all (its translator cannot be made).
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        cells = [*self.rows.values(), *self.events.values()]
        if not self.vectors or self.problems:  # a column over nothing proves nothing
            return False
        return all(v.ok for v in self.vectors) and all(s != MISSING for s, _ in cells)


@dataclass
class ParityReport:
    daemon: str
    harnesses: list[HarnessReport]

    @property
    def ok(self) -> bool:
        return bool(self.harnesses) and all(h.ok for h in self.harnesses)

    def as_dict(self) -> dict[str, Any]:
        return {
            "daemon": self.daemon,
            "ok": self.ok,
            "rows": list(DEPENDENCY_MAP_ROWS),
            "harnesses": {
                h.harness: {
                    "ok": h.ok,
                    "problems": h.problems,
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


def plugins() -> dict[str, HarnessPlugin]:
    """Every installed plugin, plus the generic one, by harness."""
    from signet_sdk.runtime.generic import generic_plugin
    from signet_sdk.runtime.registry import installed_plugins

    found = {"generic": generic_plugin("generic", "plugin")}
    found.update((p.name, p) for p in installed_plugins())
    return found


def _check_vector(
    plugin: HarnessPlugin,
    vector: Mapping[str, Any],
    daemon: LeanClient,
    recorded: Callable[[], list[Any]] | None,
) -> VectorResult:
    result = VectorResult(str(vector.get("name")), str(vector.get("event") or "?"))
    problems, calls, run = vector_problems(plugin, vector, daemon.config)
    result.problems += problems
    if run is None:  # a refused payload, or a vector that cannot run: nothing was sent
        return result
    result.endpoints = [c.action for c in calls]

    from signet_sdk.runtime.events import prepare_transcript

    for call in calls:
        # Send what the adapter would send: harness transcript files staged or left out.
        sent, staged = prepare_transcript(plugin, call)
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
                Path(staged).unlink(missing_ok=True)
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

    import signet_sdk.models as _models

    model = getattr(_models, endpoint(action).response)
    try:
        model.model_validate(answer)
    except ValidationError as exc:
        return f"{action} answer does not fit {model.__name__}: {exc.errors()[0]['msg']}"
    return None


def _matrix(
    plugin: HarnessPlugin,
    results: list[VectorResult],
    tools: dict[str, str | None] | None = None,
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    passing = [r for r in results if r.ok]
    covered_eps = {e for r in passing for e in r.endpoints}
    declared = dict(plugin.not_applicable)
    path = TOOL_PATHS.get(plugin.tools or "", "")
    rows: dict[str, tuple[str, str]] = {}
    for row in DEPENDENCY_MAP_ROWS:
        tool_problem = (tools or {}).get(row, "") if row in TOOL_ROWS and path else ""
        if endpoint_for_row(row).name in covered_eps:
            rows[row] = (COVERED, "")
        elif tool_problem is None:
            rows[row] = (COVERED, f"via {path}")
        elif isinstance(tool_problem, NotExercised):
            rows[row] = (NOT_APPLICABLE, f"the {path} path: {tool_problem}")
        elif tool_problem:
            rows[row] = (MISSING, f"the {path} path: {tool_problem}")
        elif row in declared:
            rows[row] = (NOT_APPLICABLE, declared[row])
        else:
            rows[row] = (MISSING, "no passing vector calls it and the adapter gives no reason")
    events: dict[str, tuple[str, str]] = {}
    for event in plugin.events:
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
    from signet_sdk.testing.mock_daemon import MockDaemon

    mock = MockDaemon()
    with mock.serve() as handle:
        yield handle.url, mock


def run_parity(daemon_url: str | None = None, harnesses: list[str] | None = None) -> ParityReport:
    """Run every (or the named) adapter's vectors, then the runtime's session; a fresh mock each."""
    reports = []
    label = daemon_url or "bundled mock daemon"
    for name, plugin in plugins().items():
        if harnesses and name not in harnesses:
            continue
        reports.append(_harness_report(name, plugin, daemon_url))
    if not harnesses or RUNTIME_COLUMN in harnesses:
        # The reference runtime: audited by running one session, not by vectors.
        from signet_sdk.testing.parity_runtime import runtime_report

        with _daemon(daemon_url) as (url, mock):
            reports.append(runtime_report(url, mock))
    return ParityReport(label, reports)


def _harness_report(name: str, plugin: HarnessPlugin, daemon_url: str | None) -> HarnessReport:
    """One harness's column. Whatever its package gets wrong (a translator that
    cannot be made, a vector file that is not JSON, a handler that crashes) is a
    FAIL in this column only: one bad package must never hide the others."""
    results: list[VectorResult] = []
    problems = _unknown_not_applicable(plugin)
    tools = None
    try:
        plugin.make_translator({})
    except Exception as exc:
        problems.append(f"its translator cannot be made: {type(exc).__name__}: {exc}")
    else:
        try:
            with _daemon(daemon_url) as (url, mock):
                config = resolve_config(
                    url,
                    harness=plugin.name,
                    runtime_path=plugin.runtime_path,  # type: ignore[arg-type]
                    max_retries=0,
                    env={},
                )
                client = LeanClient(config)
                recorded = (lambda: mock.requests) if mock is not None else None
                for path in plugin.vector_files():
                    results.append(_check_file(plugin, path, client, recorded))
                tools = exercise_tools(plugin.name, url, mock) if plugin.tools else None
        except Exception as exc:
            problems.append(f"parity could not check it: {type(exc).__name__}: {exc}")
    rows, events = _matrix(plugin, results, tools)
    return HarnessReport(name, results, rows, events, problems)


def _unknown_not_applicable(plugin: HarnessPlugin) -> list[str]:
    """A ``not_applicable`` key that is neither a dependency-map row nor one of the
    plugin's native events: a typo ("helth") that would leave the row it meant
    MISSING unexplained, or pass unseen. Checked here, not by ``HarnessPlugin``:
    the hook path loads the plugin and must not load the endpoint table."""
    known = {*DEPENDENCY_MAP_ROWS, *plugin.events}
    return [
        f"plugin {plugin.name!r}: not_applicable names {key!r}, which is neither "
        "a dependency-map row nor one of its native events"
        for key in plugin.not_applicable
        if key not in known
    ]


def _check_file(
    plugin: HarnessPlugin,
    path: str,
    daemon: LeanClient,
    recorded: Callable[[], list[Any]] | None,
) -> VectorResult:
    """One vector file's result. A file that cannot be read names itself (the
    column names the harness), and a check that crashes fails only this vector."""
    file = Path(path)
    try:
        vector = read_vector(file)
    except ValueError as exc:  # not JSON, or not an object
        return VectorResult(file.stem, "?", [f"{file.name}: {str(exc).removeprefix(f'{file}: ')}"])
    try:  # a vector of the wrong shape is a problem of vector_problems, as check_vector says it
        return _check_vector(plugin, vector, daemon, recorded)
    except Exception as exc:  # a check this suite did not foresee
        problem = f"{file.name}: parity could not check it: {type(exc).__name__}: {exc}"
        return VectorResult(str(vector["name"]), str(vector.get("event") or "?"), [problem])


def _fill(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, width=WIDTH, subsequent_indent=indent) or [text]


#: Every line of the text report fits this many columns.
WIDTH = 100


def format_table(report: ParityReport) -> str:
    """The matrix as text within 100 columns: harness columns, one line per row or event."""
    symbol = {COVERED: "covered", NOT_APPLICABLE: "n/a", MISSING: "MISSING"}
    width = max(len(r) for r in DEPENDENCY_MAP_ROWS) + 2
    lines = [f"parity against {report.daemon}"]
    if not report.harnesses:
        lines += ["", "no harness was checked", "", "parity: FAILED (nothing to check)"]
        return "\n".join(lines)
    # As many harness columns per block as fit the width.
    cols = [(h, max(len(h.harness), 7) + 2) for h in report.harnesses]
    blocks: list[list[tuple[HarnessReport, int]]] = [[]]
    used = width
    for h, w in cols:
        if blocks[-1] and used + w > WIDTH:
            blocks.append([])
            used = width
        blocks[-1].append((h, w))
        used += w
    for block in blocks:
        lines.append("")
        head = "dependency-map row".ljust(width) + "".join(h.harness.ljust(w) for h, w in block)
        lines.append(head.rstrip())
        for row in DEPENDENCY_MAP_ROWS:
            cells = "".join(symbol[h.rows[row][0]].ljust(w) for h, w in block)
            lines.append((row.ljust(width) + cells).rstrip())
    for h in report.harnesses:
        lines.append("")
        passed = sum(v.ok for v in h.vectors)
        if h.harness == RUNTIME_COLUMN:
            lines.append(f"{h.harness}: {passed}/{len(h.vectors)} steps of one session pass:")
        else:
            lines.append(f"{h.harness}: {passed}/{len(h.vectors)} vectors pass; native events:")
        for problem in h.problems:
            lines += _fill(f"  FAIL {problem}", "      ")
        if not h.vectors and not h.problems:
            lines.append("  FAIL no vectors: the plugin ships none, so nothing is proven")
        ew = max([len(e) for e in h.events] + [10]) + 2
        for event, (status, why) in h.events.items():
            text = f"  {event.ljust(ew)}{symbol[status]}" + (f"  ({why})" if why else "")
            lines += _fill(text, " " * (ew + 2))
        via = [row for row, (status, why) in h.rows.items() if why.startswith("via ")]
        if via:
            how = h.rows[via[0]][1]
            lines += _fill(f"  tools {how}: {', '.join(via)}", "      ")
        for row, (status, why) in h.rows.items():
            if status == NOT_APPLICABLE:
                lines += _fill(f"  n/a {row}: {why}", "      ")
        for v in h.vectors:
            for problem in v.problems:
                for part in f"FAIL {v.name}: {problem}".splitlines():
                    lines += _fill("  " + part, "      ")
    lines.append("")
    lines.append("parity: ok" if report.ok else "parity: FAILED (see MISSING and FAIL above)")
    return "\n".join(lines)


def assert_parity(harness: str, daemon_url: str | None = None) -> None:
    """Raise ``AssertionError`` unless ``harness``'s parity column passes with no MISSING row.

    The harness's plugin must be installed (its entry point is how the
    suite finds it); the vectors run against the bundled mock daemon unless
    ``daemon_url`` names another.
    """
    report = run_parity(daemon_url, [harness])
    if not report.harnesses:
        raise AssertionError(f"no plugin installed for harness {harness!r}")
    if not report.ok:
        raise AssertionError(format_table(report))
