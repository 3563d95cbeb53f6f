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

__all__ = ["dumps", "loads", "loads_payload"]

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
    except SystemError:
        # Most syntax errors are raised by the accelerator as json.decoder's
        # JSONDecodeError, which it finds only once ``json`` is imported; until
        # then it fails without saying why. A document that is not JSON is
        # rare, so it pays for the import and is parsed again for the message.
        import json

        return json.loads(text)
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


def loads_payload(data: str | bytes | bytearray) -> Any:
    """A document from outside (a harness's payload, a request body): :func:`loads`, and more.

    Nesting too deep for the parser is a ``ValueError`` like any other bad
    document, not a ``RecursionError``. A lone surrogate (``"\\ud800"``: valid
    JSON, as a JavaScript harness writes half of a cut emoji) becomes U+FFFD,
    as a UTF-8 encoder makes it: left in, it would fail every later encoding
    of the text (the daemon request, the outbox file, the answer). A leading
    byte-order mark (a Windows wrapper script may write one) is no content.
    """
    if isinstance(data, str):
        data = data.removeprefix("\ufeff")
    elif data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        value = loads(data)
    except RecursionError:
        raise ValueError("nested too deeply to be read") from None
    escapes = ("\\ud", "\\uD") if isinstance(data, str) else (b"\\ud", b"\\uD")
    if any(e in data for e in escapes):  # type: ignore[operator]
        value = _mend(value)
    return value


def _mend_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (``text`` itself when it has none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _mend(value: Any) -> Any:
    """``value`` with every string (keys too) mended; containers are changed in place."""
    if isinstance(value, str):
        return _mend_text(value)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(isinstance(k, str) and _mend_text(k) is not k for k in item):
                mended = {_mend_text(k): v for k, v in item.items()}
                item.clear()
                item.update(mended)
            for key, inner in item.items():
                if isinstance(inner, str):
                    item[key] = _mend_text(inner)
                elif isinstance(inner, dict | list):
                    stack.append(inner)
        elif isinstance(item, list):
            for index, inner in enumerate(item):
                if isinstance(inner, str):
                    item[index] = _mend_text(inner)
                elif isinstance(inner, dict | list):
                    stack.append(inner)
    return value
