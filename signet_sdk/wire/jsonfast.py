"""JSON for the hook path, without the ``json`` package's start-up cost.

``import json`` brings in ``re`` (and ``enum`` with it) for a pure-Python
fallback scanner the C accelerator never uses: several milliseconds of a
hook process whose whole budget is three times ``python -c pass``. The
accelerator itself, ``_json``, needs neither, so ``loads`` and ``dumps``
drive it directly with the same settings ``json`` gives it. Where ``_json``
is missing (another Python implementation) the ``json`` package does the
work. Only what the hook path needs: UTF-8 text or bytes in, compact text
out.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]

__all__ = ["dumps", "loads"]

_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_BLANK = " \t\n\r"


class _Context:
    """The attributes the C scanner reads from a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = None if _json is None else _json.make_scanner(_Context())  # type: ignore[arg-type]


def loads(data: str | bytes | bytearray) -> Any:
    """Parse one JSON document; a ``ValueError`` says what is wrong, as ``json.loads`` does."""
    text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_BLANK))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value at character {stop.value}") from None
    if text[end:].strip(_BLANK):
        raise ValueError(f"Extra data at character {end}")
    return value


def _unserialisable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: Any, *, sort_keys: bool = False, ascii_only: bool = False) -> str:
    """Compact JSON (``","`` and ``":"``), like ``json.dumps(..., separators=(",", ":"))``."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(
            value, separators=(",", ":"), sort_keys=sort_keys, ensure_ascii=ascii_only
        )
    quote = _json.encode_basestring_ascii if ascii_only else _json.encode_basestring
    if isinstance(value, str):
        return str(quote(value))
    encode = _json.make_encoder({}, _unserialisable, quote, None, ":", ",", sort_keys, False, True)
    return "".join(encode(value, 0))
