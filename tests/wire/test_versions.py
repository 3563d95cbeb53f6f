"""Daemon versions: comparing releases, what doctor says of one, and the since-map's truth."""

from __future__ import annotations

import pytest

import signet_sdk.models as models
from signet_sdk.wire.endpoints import BASELINE_VERSION, ENDPOINTS
from signet_sdk.wire.versions import (
    FIELDS_SINCE,
    TESTED_VERSIONS,
    older_than,
    parse_version,
    support_of,
)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("0.145.8", (0, 145, 8)), ("v0.109.15", (0, 109, 15)), ("0.150.0-beta.2", (0, 150, 0))],
)
def test_parse_version(text: str, parsed: tuple[int, ...]) -> None:
    assert parse_version(text) == parsed


def test_parse_version_refuses_text_without_a_number() -> None:
    with pytest.raises(ValueError, match="not a version"):
        parse_version("dev")


def test_older_than() -> None:
    assert older_than("0.109.15", "0.145.8")
    assert not older_than("0.145.8", "0.145.8") and not older_than("0.200.1", "0.145.8")
    assert not older_than("unknown", "0.145.8")  # unreadable: never claimed too old


@pytest.mark.parametrize(
    ("version", "ok", "says"),
    [
        ("0.109.15", True, "supported (tested: 0.109.15, 0.145.8)"),
        ("0.145.8", True, "supported (tested"),
        ("0.109.0", True, "between the tested releases"),
        ("0.120.3", True, "between the tested releases"),
        ("0.160.0", True, "newer than 0.145.8, the newest tested"),
        ("0.108.9", False, "older than 0.109.15"),
        ("?", False, "cannot read"),
    ],
)
def test_support_of(version: str, ok: bool, says: str) -> None:
    supported, why = support_of(version)
    assert supported is ok and says in why


def test_every_route_and_field_newer_than_the_baseline_exists_in_the_sdk() -> None:
    assert TESTED_VERSIONS[0] == BASELINE_VERSION
    for ep in ENDPOINTS:
        assert ep.since in TESTED_VERSIONS, ep.name
    for name, fields in FIELDS_SINCE.items():
        model = getattr(models, name)
        wire = {info.alias or field for field, info in model.model_fields.items()}
        assert set(fields) <= wire, (name, set(fields) - wire)
        assert set(fields.values()) <= set(TESTED_VERSIONS), name
