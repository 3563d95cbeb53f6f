"""The body models against the daemon contract (docs/daemon-contract.md).

Wire names, which fields are required, the no-op 200s every hook result must
accept, the TS 0.109 success bodies, round trips, and the schema drift check
that CI relies on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import signet_sdk.models as models
from signet_sdk.models.schemas import (
    DEFAULT_DIR,
    check_schemas,
    generate_schemas,
    main,
    write_schemas,
)
from signet_sdk.wire.contract_data import contract_dir
from signet_sdk.wire.endpoints import ENDPOINTS

UUID = "0b7f2c1e-5f7a-4e8e-9c3d-2a1b0c9d8e7f"
UUID2 = "6a4d9e2b-1c3f-4a5b-8d7e-9f0a1b2c3d4e"


def _model_classes() -> dict[str, type[BaseModel]]:
    return {
        name: obj
        for name in models.__all__
        if isinstance(obj := getattr(models, name), type) and issubclass(obj, BaseModel)
    }


def _error_locs(exc: pytest.ExceptionInfo[ValidationError]) -> list[tuple[Any, ...]]:
    return [tuple(err["loc"]) for err in exc.value.errors()]


# -- package surface ---------------------------------------------------------


def test_all_is_sorted_and_complete() -> None:
    assert models.__all__ == sorted(models.__all__)
    assert len(set(models.__all__)) == len(models.__all__)
    for name in models.__all__:
        assert hasattr(models, name), name


def test_endpoint_map_names_resolve_to_models() -> None:
    for ep in ENDPOINTS:
        for name, base in ((ep.request, models.RequestModel), (ep.response, models.ResponseModel)):
            if name is None:
                continue
            cls = getattr(models, name)
            assert issubclass(cls, base), f"{ep.name}: {name} is not a {base.__name__}"


def test_every_hook_result_carries_the_noop_flags() -> None:
    hook_endpoints = [ep for ep in ENDPOINTS if ep.sends_runtime_path]
    assert len(hook_endpoints) == 8
    for ep in hook_endpoints:
        assert issubclass(getattr(models, ep.response), models.HookResult), ep.name


def test_lifecycle_triples_split_client_fields_from_caller_fields() -> None:
    triples = [
        "SessionStart",
        "UserPromptSubmit",
        "SessionEnd",
        "CheckpointExtract",
        "PreCompaction",
        "CompactionComplete",
        "Remember",
        "Recall",
    ]
    for stem in triples:
        params = getattr(models, f"{stem}Params")
        request = getattr(models, f"{stem}Request")
        result = getattr(models, f"{stem}Result")
        assert issubclass(request, params)
        assert issubclass(result, models.HookResult)
        assert "harness" not in params.model_fields
        assert "runtime_path" not in params.model_fields
        assert request.model_fields["harness"].is_required()
        assert not request.model_fields["runtime_path"].is_required()
        assert set(request.model_fields) - set(params.model_fields) == {"harness", "runtime_path"}


def test_hook_results_have_no_required_field() -> None:
    # A flags-only body (the client's rendering of a 409 conflict) must parse.
    for name, cls in _model_classes().items():
        if issubclass(cls, models.HookResult):
            required = [f for f, info in cls.model_fields.items() if info.is_required()]
            assert required == [], name


# -- wire names ---------------------------------------------------------------


#: ``contract/wire-names.json``: request bodies given by Python field names, and
#: the exact JSON each must send, kept as data any client can check itself against.
WIRE_NAME_CASES: list[dict[str, Any]] = json.loads(
    (Path(contract_dir()) / "wire-names.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", WIRE_NAME_CASES, ids=[c["id"] for c in WIRE_NAME_CASES])
def test_request_built_by_field_names_sends_its_wire_names(case: dict[str, Any]) -> None:
    model: type[models.RequestModel] = getattr(models, case["model"])
    assert model(**case["fields"]).to_wire() == case["wire"]


def test_wire_name_cases_are_unique_and_name_request_models() -> None:
    ids = [case["id"] for case in WIRE_NAME_CASES]
    assert len(ids) == len(set(ids)) == 19
    for case in WIRE_NAME_CASES:
        assert issubclass(getattr(models, case["model"]), models.RequestModel), case["id"]


def test_fields_the_wire_does_not_carry() -> None:
    # Session end sends the project as ``cwd``; remember has no session key.
    assert "project" not in models.SessionEndParams.model_fields
    assert "session_key" not in models.MemoryRememberRequest.model_fields


def test_snake_case_wire_names_are_exactly_the_documented_ones() -> None:
    found: dict[str, set[str]] = {}
    for name, cls in _model_classes().items():
        snake = {f.alias for f in cls.model_fields.values() if f.alias and "_" in f.alias}
        if snake:
            found[name] = snake
    rows = {"created_at"}
    assert found == {
        "BatchForgetRequest": {"changed_by", "confirm_token", "source_type"},
        "BatchModifyRequest": {"changed_by"},
        "ForgetMemoryRequest": {"changed_by", "if_version"},
        "InjectedMemory": rows,
        "MemoryPatch": {"if_version"},
        "MemoryRecallRequest": {"importance_min"},
        "MemoryRecord": {
            "access_count",
            "created_at",
            "deleted_at",
            "embedding_model",
            "extraction_status",
            "is_deleted",
            "last_accessed",
            "session_id",
            "source_id",
            "source_type",
            "updated_at",
            "updated_by",
        },
        "ModifyMemoryRequest": {"changed_by", "if_version"},
        "RecallHit": {
            "already_recalled",
            "content_length",
            "created_at",
            "session_id",
            "source_id",
            "source_path",
            "subject_id",
            "subject_type",
            "temporal_end_at",
            "temporal_facet",
            "temporal_start_at",
        },
        "RememberResult": {"chunk_count", "entities_linked", "group_id", "hints_written"},
        "SessionSummaryRow": {
            "agent_id",
            "created_at",
            "earliest_at",
            "latest_at",
            "meta_json",
            "session_key",
            "source_ref",
            "source_type",
            "token_count",
        },
        "UserPromptSubmitParams": {"memory_feedback"},
        "UserPromptSubmitRequest": {"memory_feedback"},
    }


def test_snake_case_response_columns_round_trip() -> None:
    row = {
        "id": UUID,
        "content": "c",
        "type": "fact",
        "importance": 0.8,
        "tags": "a,b",
        "pinned": 1,
        "who": "daemon",
        "source_id": "s",
        "source_type": "manual",
        "project": None,
        "session_id": "sess",
        "confidence": 0.9,
        "access_count": 4,
        "last_accessed": "2026-04-30T10:00:00Z",
        "is_deleted": 0,
        "deleted_at": None,
        "extraction_status": "done",
        "embedding_model": "nomic",
        "version": 2,
        "created_at": "2026-04-29T10:00:00Z",
        "updated_at": "2026-04-30T10:00:00Z",
        "updated_by": "me",
        "sessionId": "sess",
    }
    record = models.MemoryRecord.model_validate(row)
    assert record.created_at == "2026-04-29T10:00:00Z"
    assert record.access_count == 4
    assert record.pinned == 1 and record.is_pinned
    assert record.is_deleted == 0
    assert record.derived_session_id == "sess"
    assert record.model_extra == {}
    assert record.to_wire() == row

    summary_row = {
        "id": "n1",
        "project": "/p",
        "depth": 0,
        "kind": "session",
        "content": "summary",
        "token_count": 120,
        "earliest_at": "a",
        "latest_at": "b",
        "session_key": "k",
        "harness": "codex",
        "agent_id": "default",
        "source_type": "compaction",
        "source_ref": None,
        "meta_json": "{}",
        "created_at": "c",
        "childCount": 2,
    }
    listing = models.SessionSummaryList.model_validate({"summaries": [summary_row], "total": 1})
    assert listing.summaries[0].child_count == 2
    assert listing.summaries[0].token_count == 120
    assert listing.to_wire() == {"summaries": [summary_row], "total": 1}


# -- unknown fields ------------------------------------------------------------


def test_unknown_response_fields_are_kept_and_reachable() -> None:
    result = models.UserPromptSubmitResult.model_validate(
        {"inject": "x", "memoryCount": 1, "sessionKnown": True, "admission": {"queued": 2}}
    )
    assert result.model_extra == {"admission": {"queued": 2}}
    assert result.to_wire()["admission"] == {"queued": 2}

    hit = models.RecallHit.model_validate({"id": UUID, "content": "c", "rerankScore": 0.7})
    assert hit.model_extra == {"rerankScore": 0.7}

    health = models.HealthStatus.model_validate(
        {"status": "healthy", "pipeline": {"extractionRunning": True, "queueDepth": 3}}
    )
    assert health.pipeline is not None
    assert health.pipeline.model_extra == {"queueDepth": 3}


@pytest.mark.parametrize(
    ("model", "body", "unknown"),
    [
        (models.SessionStartRequest, {"harness": "h", "agentID": "a"}, "agentID"),
        (models.SessionStartParams, {"harness": "h"}, "harness"),
        (
            models.UserPromptSubmitRequest,
            {"harness": "h", "userMessage": "m", "prompt": "m"},
            "prompt",
        ),
        (models.SessionEndRequest, {"harness": "h", "project": "/p"}, "project"),
        (
            models.RecallRequest,
            {"harness": "h", "query": "q", "importance_min": 0.2},
            "importance_min",
        ),
        (models.BatchForgetRequest, {"ids": ["a"], "if_version": 2}, "if_version"),
        (models.ModifyMemoryRequest, {"reason": "r", "content": "c", "ifVersion": 2}, "ifVersion"),
        (models.SecretsExecRequest, {"command": "ls", "secrets": {"A": "a"}, "env": {}}, "env"),
    ],
)
def test_unknown_request_attribute_is_rejected_by_name(
    model: type[BaseModel], body: dict[str, Any], unknown: str
) -> None:
    with pytest.raises(ValidationError) as exc:
        model.model_validate(body)
    assert (unknown,) in _error_locs(exc)
    assert unknown in str(exc.value)
    assert exc.value.errors()[0]["type"] == "extra_forbidden"


def test_python_names_are_accepted_on_input_and_sent_camel_case() -> None:
    # The daemon ignores snake_case aliases; the model translates them instead.
    body = models.SessionStartRequest.model_validate({"harness": "h", "agent_id": "a"})
    assert body.to_wire() == {"harness": "h", "agentId": "a"}


def test_unknown_keyword_argument_is_rejected_by_name() -> None:
    with pytest.raises(ValidationError) as exc:
        models.SessionEndParams(session_key="k", sesion_id="typo")  # type: ignore[call-arg]
    assert ("sesion_id",) in _error_locs(exc)


# -- required fields and validators --------------------------------------------


@pytest.mark.parametrize(
    ("model", "body", "missing"),
    [
        (models.SessionStartRequest, {}, "harness"),
        (models.CheckpointExtractRequest, {"harness": "h"}, "session_key"),
        (models.CheckpointExtractParams, {}, "session_key"),
        (models.CompactionCompleteRequest, {"harness": "h"}, "summary"),
        (models.RememberRequest, {"harness": "h"}, "content"),
        (models.RememberParams, {}, "content"),
        (models.RecallParams, {}, "query"),
        (models.MemoryRecallRequest, {}, "query"),
        (models.ModifyMemoryRequest, {"content": "c"}, "reason"),
        (models.ForgetMemoryRequest, {}, "reason"),
        (models.SecretsExecRequest, {"secrets": {"A": "a"}}, "command"),
        (models.SecretsExecRequest, {"command": "ls"}, "secrets"),
        (models.SessionBypassRequest, {}, "enabled"),
        (models.SummaryExpandRequest, {}, "id"),
        (models.SessionSearchRequest, {}, "query"),
        (models.SynthesisCompleteRequest, {}, "content"),
        (models.BatchModifyRequest, {}, "patches"),
        (models.MemoryPatch, {"content": "c"}, "id"),
    ],
)
def test_missing_required_field_is_named(
    model: type[BaseModel], body: dict[str, Any], missing: str
) -> None:
    with pytest.raises(ValidationError) as exc:
        model.model_validate(body)
    missing_errors = [e for e in exc.value.errors() if e["type"] == "missing"]
    assert [tuple(e["loc"]) for e in missing_errors] == [(missing,)]
    assert missing in str(exc.value)


def test_empty_or_blank_required_strings_are_refused() -> None:
    with pytest.raises(ValidationError):
        models.SessionStartRequest(harness="")
    with pytest.raises(ValidationError):
        models.CompactionCompleteRequest(harness="h", summary="")
    with pytest.raises(ValidationError) as exc:
        models.MemoryRecallRequest(query="   ")
    assert "blank" in str(exc.value)
    with pytest.raises(ValidationError):
        models.RememberParams(content=" \n")


def test_user_prompt_submit_needs_a_non_blank_message() -> None:
    for body in ({}, {"userMessage": "  "}, {"userMessage": "", "userPrompt": "\t"}):
        with pytest.raises(ValidationError) as exc:
            models.UserPromptSubmitParams.model_validate(body)
        text = str(exc.value)
        assert "user_message" in text and "user_prompt" in text
    assert models.UserPromptSubmitParams(user_prompt="raw").to_wire() == {"userPrompt": "raw"}
    only_legacy = models.UserPromptSubmitParams.model_validate(
        {"userMessage": " ", "userPrompt": "raw"}
    )
    assert only_legacy.user_prompt == "raw"


def test_runtime_path_is_a_closed_set_on_requests() -> None:
    with pytest.raises(ValidationError) as exc:
        models.SessionStartRequest(harness="h", runtime_path="daemon")
    assert ("runtime_path",) in _error_locs(exc)


def test_modify_needs_something_to_change() -> None:
    with pytest.raises(ValidationError) as exc:
        models.ModifyMemoryRequest(reason="r")
    for name in ("content", "type", "tags", "importance", "pinned"):
        assert name in str(exc.value)
    with pytest.raises(ValidationError):
        models.ModifyMemoryRequest(reason="r", content=None)
    with pytest.raises(ValidationError):
        models.MemoryPatch(id=UUID)
    cleared = models.ModifyMemoryRequest(reason="r", tags=None)
    assert cleared.to_wire() == {"reason": "r", "tags": None}
    with pytest.raises(ValidationError):
        models.ModifyMemoryRequest(reason="r", importance=1.5)
    with pytest.raises(ValidationError):
        models.ModifyMemoryRequest(reason="r", pinned=True, if_version=0)


def test_batch_modify_bounds() -> None:
    patch = {"id": UUID, "pinned": True}
    with pytest.raises(ValidationError):
        models.BatchModifyRequest.model_validate({"patches": []})
    with pytest.raises(ValidationError):
        models.BatchModifyRequest.model_validate({"patches": [patch] * 201})
    assert len(models.BatchModifyRequest.model_validate({"patches": [patch] * 200}).patches) == 200


def test_batch_forget_rules() -> None:
    with pytest.raises(ValidationError) as exc:
        models.BatchForgetRequest(mode="preview")
    assert "ids" in str(exc.value) and "source_type" in str(exc.value)
    with pytest.raises(ValidationError) as exc:
        models.BatchForgetRequest(mode="execute", ids=[UUID])
    assert "reason" in str(exc.value)
    with pytest.raises(ValidationError):
        models.BatchForgetRequest(mode="purge", ids=[UUID])
    with pytest.raises(ValidationError):
        models.BatchForgetRequest(ids=[UUID], limit=0)
    with pytest.raises(ValidationError):
        models.BatchForgetRequest(ids=[UUID], limit=201)
    with pytest.raises(ValidationError):
        models.BatchForgetRequest(ids=[""])
    assert models.BatchForgetRequest(who="pipeline").to_wire() == {"who": "pipeline"}


def test_bypass_wants_a_real_boolean() -> None:
    for value in ("true", 1, "yes"):
        with pytest.raises(ValidationError):
            models.SessionBypassRequest.model_validate({"enabled": value})
    assert models.SessionBypassRequest.model_validate({"enabled": False}).enabled is False


def test_secrets_exec_needs_at_least_one_secret() -> None:
    with pytest.raises(ValidationError) as exc:
        models.SecretsExecRequest(command="ls", secrets={})
    assert ("secrets",) in _error_locs(exc)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize(
    ("model", "body", "field"),
    [
        (models.MemoryRememberRequest, {"content": "c"}, "importance"),
        (models.RememberParams, {"content": "c"}, "importance"),
        (models.MemoryRecallRequest, {"query": "q"}, "min_score"),
        (models.MemoryRecallRequest, {"query": "q"}, "importance_min"),
    ],
)
def test_a_number_json_cannot_carry_is_refused_by_name(
    model: type[BaseModel], body: dict[str, Any], field: str, value: float
) -> None:
    # Sent, NaN and infinities became ``null`` and the daemon stored its default.
    with pytest.raises(ValidationError) as exc:
        model(**body, **{field: value})
    assert (field,) in _error_locs(exc)
    assert model(**body, **{field: 0.5}).to_wire()  # a finite number still goes through


def _nested(levels: int) -> dict[str, Any]:
    top: dict[str, Any] = {}
    inner = top
    for _ in range(levels - 1):
        inner["a"] = {}
        inner = inner["a"]
    return top


@pytest.mark.parametrize("model", [models.MemoryRememberRequest, models.RememberParams])
@pytest.mark.parametrize("field", ["metadata", "structured"])
@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"o": object()}, "o: object is not a JSON type"),
        ({"raw": [b"\xff"]}, "raw[0]: bytes is not a JSON type"),
        ({"n": [1, {"x": float("nan")}]}, "n[1].x: nan is not a number JSON can carry"),
        ({"ok": {1: "one"}}, "ok: key 1 is not a string"),
        (_nested(201), "nested deeper than 200 levels"),
    ],
)
def test_a_json_object_field_refuses_what_json_cannot_carry_by_path(
    model: type[BaseModel], field: str, value: dict[str, Any], says: str
) -> None:
    # These were accepted, then the call failed while sending with a bare
    # PydanticSerializationError naming no field (NaN went out as null).
    with pytest.raises(ValidationError) as exc:
        model(content="c", **{field: value})
    assert _error_locs(exc) == [(field,)]
    assert says in str(exc.value)


def test_a_json_object_field_sends_what_json_can_carry_as_given() -> None:
    value = {"ok": [1, 2.5, True, None, {"s": "é"}], "pair": (1, 2), "deep": _nested(199)}
    body = models.MemoryRememberRequest(content="c", metadata=value, structured={})
    sent = body.__pydantic_serializer__.to_json(body, by_alias=True, exclude_unset=True)
    assert json.loads(sent) == {
        "content": "c",
        "metadata": {**value, "pair": [1, 2]},
        "structured": {},
    }


# -- no-op 200 bodies (§1.6, §1.7) ----------------------------------------------

EMPTY_RECALL = {
    "results": [],
    "memories": [],
    "count": 0,
    "query": "uv",
    "method": "hybrid",
    "meta": {"totalReturned": 0, "hasSupplementary": False, "noHits": True},
    "message": "No matching memories found.",
}

NOOP_BODIES: list[tuple[type[models.HookResult], dict[str, Any], dict[str, Any]]] = [
    # (result model, body, expected attribute values)
    (
        models.SessionStartResult,
        {"inject": "", "memories": [], "bypassed": True},
        {"bypassed": True},
    ),
    (
        models.UserPromptSubmitResult,
        {"inject": "", "memoryCount": 0, "bypassed": True},
        {"bypassed": True, "memory_count": 0},
    ),
    (
        models.UserPromptSubmitResult,
        {
            "inject": "",
            "memoryCount": 0,
            "sessionKnown": True,
            "skipped": True,
            "duplicateRuntimePath": True,
            "claimedBy": "plugin",
        },
        {"skipped": True, "duplicate_runtime_path": True, "claimed_by": "plugin"},
    ),
    (
        models.SessionEndResult,
        {"memoriesSaved": 0, "bypassed": True},
        {"bypassed": True, "memories_saved": 0},
    ),
    (
        models.SessionEndResult,
        {"memoriesSaved": 0, "skipped": True, "duplicateRuntimePath": True, "claimedBy": "legacy"},
        {"skipped": True, "duplicate_runtime_path": True, "claimed_by": "legacy"},
    ),
    (
        models.SessionEndResult,
        {"memoriesSaved": 0, "skipped": True, "duplicateSessionEnd": True, "endedBy": "plugin"},
        {"skipped": True, "duplicate_session_end": True, "ended_by": "plugin"},
    ),
    (models.CheckpointExtractResult, {"skipped": True}, {"skipped": True, "queued": None}),
    (
        models.CheckpointExtractResult,
        {"skipped": True, "duplicateRuntimePath": True, "claimedBy": "plugin"},
        {"duplicate_runtime_path": True, "claimed_by": "plugin"},
    ),
    (
        models.RememberResult,
        {"success": True, "memories": [], "bypassed": True},
        {"bypassed": True, "success": True, "memories": []},
    ),
    (models.RecallResult, {**EMPTY_RECALL, "internal": True}, {"internal": True, "count": 0}),
    (models.RecallResult, {**EMPTY_RECALL, "bypassed": True}, {"bypassed": True, "results": []}),
    (models.RecallResult, {"memories": [], "count": 0, "bypassed": True}, {"results": []}),
    (
        models.PreCompactionResult,
        {"instructions": "", "bypassed": True},
        {"bypassed": True, "instructions": "", "summary_prompt": "", "guidelines": ""},
    ),
    (
        models.PreCompactionResult,
        {
            "guidelines": "",
            "instructions": "",
            "summaryPrompt": "",
            "skipped": True,
            "duplicateRuntimePath": True,
            "claimedBy": "legacy",
        },
        {"skipped": True, "claimed_by": "legacy"},
    ),
    (
        models.CompactionCompleteResult,
        {"success": True, "skipped": True, "duplicateRuntimePath": True, "claimedBy": "plugin"},
        {"success": True, "duplicate_runtime_path": True},
    ),
    (
        models.CompactionCompleteResult,
        {"success": True, "bypassed": True},
        {"success": True, "bypassed": True, "memory_id": None},
    ),
]


@pytest.mark.parametrize(("model", "body", "expected"), NOOP_BODIES)
def test_noop_bodies_parse_with_their_flags(
    model: type[models.HookResult], body: dict[str, Any], expected: dict[str, Any]
) -> None:
    result = model.model_validate(body)
    assert result.did_nothing is True
    for attr, value in expected.items():
        assert getattr(result, attr) == value, attr
    assert result.model_extra == {}
    assert result.to_wire() == body


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (models.SessionStartResult, {"inject": "", "memories": []}),
        (models.UserPromptSubmitResult, {"inject": "", "memoryCount": 0}),
        (models.SessionEndResult, {"memoriesSaved": 0}),
        (models.RememberResult, {"success": True, "memories": []}),
    ],
)
def test_unflagged_internal_noops_parse_but_carry_no_flag(
    model: type[models.HookResult], body: dict[str, Any]
) -> None:
    # x-signet-no-hooks answers these routes without a flag; the caller knows
    # it sent the header, the body alone cannot say it was a no-op.
    result = model.model_validate(body)
    assert result.did_nothing is False
    assert result.to_wire() == body


def test_flags_only_conflict_body_parses_into_every_hook_result() -> None:
    conflict = {"skipped": True, "duplicateRuntimePath": True, "claimedBy": "plugin"}
    for ep in ENDPOINTS:
        if ep.sends_runtime_path:
            result = getattr(models, ep.response).model_validate(conflict)
            assert result.did_nothing and result.claimed_by == "plugin", ep.name


def test_did_nothing_is_false_for_real_work_and_explicit_false_flags() -> None:
    assert not models.HookResult().did_nothing
    assert not models.HookResult(
        skipped=False, bypassed=False, warnings=["expires soon"]
    ).did_nothing
    assert models.HookResult(duplicate_session_end=True).did_nothing


# -- TS 0.109 success bodies ----------------------------------------------------


def test_session_start_success_bodies() -> None:
    full = {
        "identity": {"name": "Mira", "description": "pair programmer"},
        "memories": [
            {
                "id": UUID,
                "content": "prefers uv",
                "type": "preference",
                "importance": 0.8,
                "created_at": "2026-04-29T10:00:00.000Z",
            }
        ],
        "recentContext": "# MEMORY\n...",
        "inject": "# Identity\nMira\n# Memories\n- prefers uv",
        "warnings": ["session expires in ~20 minutes — consider /checkpoint"],
    }
    result = models.SessionStartResult.model_validate(full)
    assert result.identity is not None and result.identity.name == "Mira"
    assert result.memories[0].created_at == "2026-04-29T10:00:00.000Z"
    assert result.recent_context == "# MEMORY\n..."
    assert result.warnings == ["session expires in ~20 minutes — consider /checkpoint"]
    assert not result.did_nothing
    assert result.to_wire() == full

    stub = {
        "identity": {"name": "Agent"},
        "memories": [],
        "inject": "[memory active | /remember | /recall]\n# Current Date & Time\nThu",
    }
    assert models.SessionStartResult.model_validate(stub).to_wire() == stub

    newer = models.SessionStartResult.model_validate(
        {"inject": "x", "stableSystemPrompt": "s", "dynamicContext": "d", "contextHash": "h"}
    )
    assert (newer.stable_system_prompt, newer.dynamic_context) == ("s", "d")

    rust = models.SessionStartResult.model_validate(
        {"inject": "x", "memories": [], "sessionKey": UUID, "agentId": "default", "deduped": True}
    )
    assert rust.session_key == UUID and rust.deduped is True


def test_prompt_submit_and_session_end_success_bodies() -> None:
    prompt = {
        "inject": "# Current Date & Time\n...\n- prefers uv",
        "memoryCount": 1,
        "queryTerms": "uv build",
        "engine": "hybrid",
        "sessionKnown": False,
    }
    result = models.UserPromptSubmitResult.model_validate(prompt)
    assert result.memory_count == 1 and result.session_known is False
    assert result.engine == "hybrid"
    assert result.to_wire() == prompt

    queued = models.SessionEndResult.model_validate(
        {"memoriesSaved": 0, "queued": True, "jobId": UUID}
    )
    assert queued.queued and queued.job_id == UUID and not queued.did_nothing
    noise = models.SessionEndResult.model_validate({"memoriesSaved": 0, "queued": False})
    assert noise.queued is False


def test_checkpoint_pre_compaction_compaction_success_bodies() -> None:
    checkpoint = models.CheckpointExtractResult.model_validate({"queued": True, "jobId": UUID})
    assert checkpoint.job_id == UUID and not checkpoint.did_nothing

    pre = models.PreCompactionResult.model_validate(
        {"summaryPrompt": "## Memory flush\n...", "guidelines": "Keep decisions."}
    )
    assert pre.summary_prompt.startswith("## Memory flush") and pre.instructions is None

    done = models.CompactionCompleteResult.model_validate({"success": True, "memoryId": UUID})
    assert done.memory_id == UUID and done.context_epoch is None
    noise = models.CompactionCompleteResult.model_validate({"success": True, "memoryId": None})
    assert noise.memory_id is None
    newer = models.CompactionCompleteResult.model_validate(
        {"success": True, "memoryId": UUID, "contextEpoch": 4}
    )
    assert newer.context_epoch == 4
    assert models.CompactionCompleteResult.model_validate({"memoryId": 17}).memory_id == "17"


def test_numeric_ids_from_outdated_docs_read_as_text() -> None:
    result = models.SessionStartResult.model_validate({"memories": [{"id": 42, "content": "c"}]})
    assert result.memories[0].id == "42"


def test_remember_success_shapes() -> None:
    new_row = {
        "id": UUID,
        "type": "fact",
        "tags": "build,tools",
        "pinned": False,
        "importance": 0.8,
        "content": "the build uses uv",
        "embedded": True,
        "entities_linked": 2,
        "hints_written": 0,
        "structured": False,
    }
    result = models.RememberResult.model_validate(new_row)
    assert result.entities_linked == 2 and result.hints_written == 0
    assert result.to_wire() == new_row

    deduped = models.RememberResult.model_validate(
        {
            "id": UUID,
            "type": "fact",
            "tags": "",
            "pinned": False,
            "importance": 0.8,
            "content": "the build uses uv",
            "embedded": True,
            "deduped": True,
        }
    )
    assert deduped.deduped is True and not deduped.did_nothing

    chunked_body = {"chunked": True, "chunk_count": 3, "ids": [UUID, UUID2, UUID], "group_id": "g"}
    chunked = models.RememberResult.model_validate(chunked_body)
    assert chunked.chunk_count == 3 and chunked.group_id == "g" and chunked.id is None
    assert chunked.to_wire() == chunked_body

    rust = models.RememberResult.model_validate({"saved": True, "id": UUID})
    assert rust.saved is True and rust.id == UUID


def test_recall_success_bodies() -> None:
    hit = {
        "id": UUID,
        "content": "the build uses uv",
        "content_length": 17,
        "truncated": False,
        "score": 0.91,
        "source": "hybrid",
        "source_id": "doc-1",
        "session_id": "sess",
        "type": "fact",
        "tags": "build",
        "pinned": False,
        "importance": 0.8,
        "who": "daemon",
        "project": None,
        "created_at": "2026-04-29T10:00:00Z",
    }
    body = {
        "results": [hit],
        "query": "uv",
        "method": "hybrid",
        "meta": {"totalReturned": 1, "hasSupplementary": False, "noHits": False},
    }
    memory = models.MemoryRecallResult.model_validate(body)
    assert memory.results[0].content_length == 17
    assert memory.results[0].created_at == "2026-04-29T10:00:00Z"
    assert memory.meta is not None and memory.meta.total_returned == 1
    assert memory.to_wire() == body
    with pytest.raises(ValidationError):
        models.MemoryRecallResult.model_validate({"query": "uv"})

    hook_body = {**body, "memories": [hit], "count": 1, "message": "Found 1 memories (hybrid)."}
    hook = models.RecallResult.model_validate(hook_body)
    assert hook.count == 1 and hook.memories is not None and hook.memories[0].id == UUID
    assert not hook.did_nothing
    assert hook.to_wire() == hook_body

    rust = models.RecallResult.model_validate(
        {"results": [{"id": UUID, "content": "c"}], "count": 1}
    )
    assert rust.results[0].score is None


def test_synthesis_bodies() -> None:
    config = models.SynthesisConfig.model_validate(
        {
            "enabled": True,
            "provider": "ollama",
            "model": "qwen3:4b",
            "timeout": 120000,
            "maxTokens": 8000,
            "idleGapMinutes": 15,
        }
    )
    assert config.max_tokens == 8000 and config.idle_gap_minutes == 15
    result = models.SynthesisResult.model_validate(
        {"harness": "daemon", "model": "projection", "prompt": "# MEMORY", "fileCount": 3}
    )
    assert result.file_count == 3 and result.index_block is None
    assert models.SynthesisCompleteResult.model_validate({"success": True}).success is True
    assert models.SynthesisCompleteRequest(content="# MEMORY", session_key="k").to_wire() == {
        "content": "# MEMORY",
        "sessionKey": "k",
    }


def test_session_route_bodies() -> None:
    session = {
        "key": "sess-1",
        "runtimePath": "plugin",
        "claimedAt": "2026-04-30T10:00:00.000Z",
        "expiresAt": "2026-04-30T14:00:00.000Z",
        "bypassed": False,
    }
    listing = models.SessionList.model_validate({"sessions": [session], "count": 1})
    assert listing.sessions[0].runtime_path == "plugin"
    presence_only = models.SessionInfo.model_validate(
        {**session, "runtimePath": "unknown", "expiresAt": None}
    )
    assert presence_only.expires_at is None
    assert models.SessionBypassResult.model_validate({"key": "sess-1", "bypassed": True}).bypassed
    renew = models.SessionRenewResult.model_validate({"key": "k", "renewed": True})
    assert renew.renewed and renew.expires_at is None

    node = {
        "id": "n1",
        "project": "/p",
        "depth": 1,
        "kind": "arc",
        "content": "summary",
        "tokenCount": 90,
        "earliestAt": "a",
        "latestAt": "b",
        "sessionKey": "k",
        "harness": "codex",
        "agentId": "default",
        "sourceType": "summary",
        "sourceRef": None,
        "metaJson": None,
        "createdAt": "c",
    }
    expand = {
        "node": node,
        "parents": [],
        "children": [{**node, "id": "n0", "depth": 0}],
        "linkedMemories": [
            {"id": UUID, "content": "c", "type": "fact", "createdAt": "t", "deleted": False}
        ],
        "transcript": {
            "sessionKey": "k",
            "harness": "codex",
            "project": "/p",
            "updatedAt": "t",
            "excerpt": "…",
        },
    }
    expanded = models.SummaryExpandResult.model_validate(expand)
    assert expanded.node.token_count == 90 and expanded.children[0].depth == 0
    assert expanded.linked_memories[0].created_at == "t"
    assert expanded.transcript is not None and expanded.transcript.content is None
    assert expanded.to_wire() == expand

    transcript = models.SessionTranscript.model_validate(
        {"sessionKey": "k", "agentId": "a", "content": "user: hi"}
    )
    assert transcript.content == "user: hi"
    search = models.SessionSearchResult.model_validate(
        {
            "query": "uv",
            "hits": [
                {"sessionKey": "k", "project": "/p", "updatedAt": "t", "excerpt": "e", "rank": -1.2}
            ],
            "count": 1,
        }
    )
    assert search.hits[0].rank == -1.2


def test_modify_and_forget_result_bodies() -> None:
    updated = models.ModifyMemoryResult.model_validate(
        {
            "id": UUID,
            "status": "updated",
            "currentVersion": 1,
            "newVersion": 2,
            "contentChanged": True,
            "embedded": True,
        }
    )
    assert updated.new_version == 2 and updated.content_changed is True
    unchanged = models.ModifyMemoryResult.model_validate(
        {"id": UUID, "status": "no_changes", "currentVersion": 2}
    )
    assert unchanged.new_version is None

    batch = models.BatchModifyResult.model_validate(
        {
            "total": 2,
            "updated": 1,
            "results": [
                {"id": UUID, "status": "updated", "currentVersion": 1, "newVersion": 2},
                {"id": None, "status": "invalid_request", "error": "id is required"},
            ],
        }
    )
    assert batch.results[1].id is None and batch.results[1].status == "invalid_request"

    forgot = models.ForgetMemoryResult.model_validate(
        {"id": UUID, "status": "deleted", "currentVersion": 2, "newVersion": 3}
    )
    assert forgot.status == "deleted" and forgot.new_version == 3

    preview = models.BatchForgetResult.model_validate(
        {
            "mode": "preview",
            "count": 2,
            "requiresConfirm": False,
            "confirmToken": "0123456789abcdef0123456789abcdef",
            "candidates": [
                {"id": UUID, "score": 0.913, "pinned": False, "version": 1},
                {"id": UUID2, "score": 0.5, "pinned": True, "version": 4},
            ],
        }
    )
    assert preview.confirm_token == "0123456789abcdef0123456789abcdef"
    assert preview.candidates is not None and preview.candidates[1].pinned is True
    execute = models.BatchForgetResult.model_validate(
        {
            "mode": "execute",
            "requested": 2,
            "deleted": 1,
            "results": [
                {"id": UUID, "status": "deleted", "currentVersion": 1, "newVersion": 2},
                {"id": UUID2, "status": "pinned_requires_force"},
            ],
        }
    )
    assert execute.deleted == 1 and execute.results is not None
    assert execute.results[1].current_version is None


def test_ops_bodies() -> None:
    refused = models.SecretsExecResult.model_validate(
        {"stdout": "", "stderr": "command contains disallowed shell metacharacters", "code": 1}
    )
    assert refused.code == 1
    with pytest.raises(ValidationError):
        models.SecretsExecResult.model_validate({"stdout": ""})

    health = models.HealthStatus.model_validate(
        {
            "status": "healthy",
            "uptime": 12.5,
            "pid": 4242,
            "version": "0.109.15",
            "port": 3850,
            "agentsDir": "/home/u/.agents",
            "db": True,
            "shuttingDown": False,
            "updateAvailable": False,
            "pendingRestart": False,
            "pipeline": {
                "extractionRunning": True,
                "extractionStalled": False,
                "extractionPending": 0,
                "extractionBackoffMs": 0,
            },
            "resources": {"rssMb": 180},
        }
    )
    assert health.agents_dir == "/home/u/.agents"
    assert health.pipeline is not None and health.pipeline.extraction_stalled is False

    entry = {
        "timestamp": "2026-04-30T10:00:00.000Z",
        "level": "error",
        "category": "hooks",
        "message": "Hook execution failed",
        "data": {"route": "session-end"},
        "duration": 12,
        "error": {"name": "Error", "message": "boom"},
    }
    logs = models.LogList.model_validate({"logs": [entry], "count": 1})
    assert logs.logs[0].error is not None and logs.logs[0].error.stack is None
    assert models.LogEntry.model_validate(entry).to_wire() == entry


# -- round trips ---------------------------------------------------------------

_text = st.text(max_size=30)
_nonblank = _text.filter(lambda s: s.strip() != "")
_maybe_text = st.none() | _text


def _wire_trip(model: type[models.RequestModel], value: models.RequestModel) -> None:
    wire = value.to_wire()
    back = model.model_validate(json.loads(json.dumps(wire)))
    assert back == value
    assert back.to_wire() == wire


@given(
    st.fixed_dictionaries(
        {"harness": _text.filter(bool)},
        optional={
            "runtime_path": st.sampled_from(["plugin", "legacy"]),
            "session_key": _maybe_text,
            "session_id": _text,
            "agent_id": _text,
            "transcript_path": _text,
            "transcript": _text,
            "cwd": _text,
            "reason": st.sampled_from(["clear", "exit", "logout"]),
        },
    )
)
def test_session_end_request_round_trips(kwargs: dict[str, Any]) -> None:
    _wire_trip(models.SessionEndRequest, models.SessionEndRequest(**kwargs))


@given(
    st.fixed_dictionaries(
        {"harness": _text.filter(bool), "user_message": _nonblank},
        optional={
            "user_prompt": _text,
            "session_key": _text,
            "project": _maybe_text,
            "memory_feedback": st.dictionaries(
                _text, st.floats(min_value=-1, max_value=1), max_size=4
            ),
            "harness_agent_id": _text,
        },
    )
)
def test_user_prompt_submit_request_round_trips(kwargs: dict[str, Any]) -> None:
    _wire_trip(models.UserPromptSubmitRequest, models.UserPromptSubmitRequest(**kwargs))


@given(
    st.fixed_dictionaries(
        {"reason": _text.filter(bool)},
        optional={
            "content": _nonblank,
            "type": _text.filter(bool),
            "tags": st.none() | _text | st.lists(_text, max_size=3),
            "importance": st.floats(min_value=0, max_value=1),
            "pinned": st.booleans(),
            "if_version": st.integers(min_value=1, max_value=2**31),
            "changed_by": _text,
        },
    )
)
def test_modify_memory_request_round_trips(kwargs: dict[str, Any]) -> None:
    assume({"content", "type", "tags", "importance", "pinned"} & kwargs.keys())
    _wire_trip(models.ModifyMemoryRequest, models.ModifyMemoryRequest(**kwargs))


@given(
    st.fixed_dictionaries(
        {"ids": st.lists(_text.filter(bool), min_size=1, max_size=3)},
        optional={
            "mode": st.just("preview"),
            "source_type": _text,
            "limit": st.integers(min_value=1, max_value=200),
            "confirm_token": _text,
            "force": st.booleans(),
        },
    )
)
def test_batch_forget_request_round_trips(kwargs: dict[str, Any]) -> None:
    _wire_trip(models.BatchForgetRequest, models.BatchForgetRequest(**kwargs))


# -- schemas -------------------------------------------------------------------


def test_committed_schemas_match_the_models() -> None:
    drift = check_schemas(DEFAULT_DIR)
    assert drift == [], f"run `python -m signet_sdk.models.schemas` to regenerate: {drift}"


def test_schemas_use_wire_names_and_cover_every_model() -> None:
    schemas = generate_schemas()
    expected = {
        name
        for name, cls in _model_classes().items()
        if cls not in (models.SignetModel, models.RequestModel, models.ResponseModel)
    }
    assert set(schemas) == expected
    assert "memory_feedback" in schemas["UserPromptSubmitRequest"]["properties"]
    assert "userMessage" in schemas["UserPromptSubmitRequest"]["properties"]
    assert schemas["SessionStartRequest"]["required"] == ["harness"]
    assert schemas["SessionStartRequest"]["additionalProperties"] is False
    assert schemas["SessionStartResult"]["additionalProperties"] is True
    assert "created_at" in schemas["MemoryRecord"]["properties"]


def test_check_reports_drifted_missing_and_extra(tmp_path: Path) -> None:
    write_schemas(tmp_path)
    assert check_schemas(tmp_path) == []
    (tmp_path / "SessionEndResult.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "LogEntry.json").unlink()
    (tmp_path / "RetiredModel.json").write_text("{}\n", encoding="utf-8")
    assert check_schemas(tmp_path) == ["LogEntry", "RetiredModel", "SessionEndResult"]
    assert main(["--check", str(tmp_path)]) == 1
    assert main([str(tmp_path)]) == 0
    assert check_schemas(tmp_path) == []
    assert main(["--check", str(tmp_path)]) == 0


def test_schema_files_are_sorted_two_space_json_with_newline(tmp_path: Path) -> None:
    write_schemas(tmp_path)
    text = (tmp_path / "SecretsExecRequest.json").read_text(encoding="utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["required"] == ["command", "secrets"]
    assert data["properties"]["secrets"]["minProperties"] == 1
