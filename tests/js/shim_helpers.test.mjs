// What every harness shim shares beside the transport (signet_sdk/shims/transport.mjs):
// its event table, the parts of a native event that table selects, carried
// markers and tool answers, under node --test.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import {
  hooksOff,
  loadSpec,
  matches,
  mergeCarry,
  select,
  toolResult,
} from "../../signet_sdk/shims/transport.mjs";

test("hooksOff: SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 turns the shims off", () => {
  assert.equal(hooksOff({}), false);
  assert.equal(hooksOff({ SIGNET_BYPASS: "1" }), true);
  assert.equal(hooksOff({ SIGNET_NO_HOOKS: "1" }), true);
  assert.equal(hooksOff({ SIGNET_BYPASS: "0", SIGNET_NO_HOOKS: "" }), false);
});

test("loadSpec: the table beside the shim, null when absent, malformed or without events", () => {
  const dir = mkdtempSync(join(tmpdir(), "signet-spec-"));
  const spec = { harness: "h", events: { start: { fields: { type: true } } } };
  writeFileSync(join(dir, "good.json"), JSON.stringify(spec));
  writeFileSync(join(dir, "bad.json"), "{not json");
  writeFileSync(join(dir, "empty.json"), JSON.stringify({ harness: "h" }));
  assert.deepEqual(loadSpec(dir, "good.json"), spec);
  assert.equal(loadSpec(dir, "missing.json"), null);
  assert.equal(loadSpec(dir, "bad.json"), null);
  assert.equal(loadSpec(dir, "empty.json"), null);
});

test("select: true keeps a value as is, an object keeps those fields", () => {
  const event = { type: "input", text: "hi", extra: 1, nested: { a: 1, b: 2 } };
  assert.deepEqual(select(event, { type: true, text: true, nested: { a: true }, gone: true }), {
    type: "input",
    text: "hi",
    nested: { a: 1 },
  });
  assert.equal(select(event, true), event);
  assert.equal(select(undefined, { a: true }), undefined);
  assert.equal(select("text", { a: true }), undefined);
  assert.equal(select(event, false), undefined);
});

test('select: "count" is an array\'s length, nothing for anything else', () => {
  assert.deepEqual(select({ images: [1, 2, 3], none: "x" }, { images: "count", none: "count" }), {
    images: 3,
  });
});

test("select: an object rule applies to each element of an array", () => {
  const parts = [{ type: "text", text: "a", id: 1 }, { type: "file" }, "raw"];
  assert.deepEqual(select({ parts }, { parts: { type: true, text: true } }), {
    parts: [{ type: "text", text: "a" }, { type: "file" }, undefined],
  });
});

test("select: count, find and findLast derive a field from an array field", () => {
  const messages = [
    { role: "user", content: "q1" },
    { role: "assistant", content: "a1" },
    { role: "compactionSummary", summary: "s" },
    { role: "assistant", content: "a2" },
  ];
  const rule = {
    messageCount: ["count", "messages"],
    first: ["find", "messages", { role: "assistant" }, { content: true }],
    last: ["findLast", "messages", { role: "assistant" }, { content: true }],
    summary: ["find", "messages", { role: "compactionSummary" }, { summary: true }],
    none: ["find", "messages", { role: "system" }, { content: true }],
    notArray: ["count", "prompt"],
  };
  assert.deepEqual(select({ messages, prompt: "p" }, rule), {
    messageCount: 4,
    first: { content: "a1" },
    last: { content: "a2" },
    summary: { summary: "s" },
  });
});

test("matches: every field of the match, on an object only", () => {
  assert.equal(matches({ type: "compaction", x: 1 }, { type: "compaction" }), true);
  assert.equal(matches({ type: "message" }, { type: "compaction" }), false);
  assert.equal(matches(null, {}), false);
  assert.equal(matches("compaction", {}), false);
});

test("mergeCarry: null or undefined drops a marker, any other value sets it", () => {
  const carry = { keep: 1, drop: 2, gone: 3 };
  mergeCarry(carry, { drop: null, gone: undefined, added: "x", keep: 0 });
  assert.deepEqual(carry, { keep: 0, added: "x" });
  mergeCarry(carry, null);
  assert.deepEqual(carry, { keep: 0, added: "x" });
});

test("toolResult: a result as text and details, an error thrown under the tool's name", () => {
  assert.deepEqual(toolResult("recall", { result: { hits: [] } }), {
    content: [{ type: "text", text: '{"hits":[]}' }],
    details: { hits: [] },
  });
  assert.throws(() => toolResult("recall", { error: "daemon down" }), { message: "recall: daemon down" });
  assert.throws(() => toolResult("recall", { error: "recall: bad query" }), { message: "recall: bad query" });
  assert.throws(() => toolResult("recall", null), { message: "recall: no answer" });
});
