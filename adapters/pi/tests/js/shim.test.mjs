// The pi shim on its own: what it forwards, in which order, and how it applies
// answers, with a fake pi and a fake transport. Run: node --test adapters/pi/tests/js/
// (the pytest suite runs it too). The shim is copied next to the core's transport in
// a temporary directory, as the installer lays it out.

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const SHIM = join(HERE, "..", "..", "signet_adapter_pi", "shim", "index.js");
const TRANSPORT = join(HERE, "..", "..", "..", "..", "signet_sdk", "shims", "transport.mjs");

const SPEC = {
  harness: "pi",
  events: {
    session_start: { fields: { type: true, reason: true }, session: "meta", timeoutMs: 16000 },
    input: { fields: { type: true, text: true, images: "count" }, session: "meta", timeoutMs: 6000 },
    session_before_compact: {
      fields: { type: true, preparation: { tokensBefore: true, messagesToSummarize: "count" } },
      session: "meta",
      timeoutMs: 11000,
    },
    session_shutdown: { fields: { type: true, reason: true }, session: "transcript", timeoutMs: 11000 },
  },
};

let dir;
let shim;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "signet-pi-shim-"));
  copyFileSync(SHIM, join(dir, "index.mjs"));
  copyFileSync(TRANSPORT, join(dir, "transport.mjs"));
  writeFileSync(join(dir, "signet-pi.json"), JSON.stringify(SPEC));
  shim = await import(pathToFileURL(join(dir, "index.mjs")).href);
});

after(() => rmSync(dir, { recursive: true, force: true }));

function fakePi() {
  const handlers = new Map();
  return {
    handlers,
    on(name, handler) {
      handlers.set(name, handler);
    },
    fire(name, event, ctx) {
      return handlers.get(name)({ type: name, ...event }, ctx);
    },
  };
}

function fakeCtx(overrides = {}) {
  const entries = [{ type: "message", id: "e1", message: { role: "user", content: "hi" } }];
  return {
    cwd: "/work/atlas",
    sessionManager: {
      getSessionId: () => overrides.id || "sess-1",
      getSessionFile: () => overrides.file || null,
      getLeafId: () => "leaf-1",
      isPersisted: () => overrides.persisted ?? false,
      getHeader: () => ({ type: "session", id: overrides.id || "sess-1", cwd: "/work/atlas" }),
      getEntries: () => entries,
    },
  };
}

function recorder(answers = {}) {
  const sent = [];
  const send = async (harness, event, payload, options) => {
    sent.push({ harness, event, payload, options });
    const answer = answers[event];
    return typeof answer === "function" ? answer(payload) : (answer ?? null);
  };
  return { sent, send };
}

const SESSION_SLOT = {
  context: {
    "signet-session": {
      at: "start",
      messages: [{ role: "custom", customType: "signet-memory", content: "SESSION", display: false }],
    },
  },
};
const RECALL_SLOT = {
  context: {
    "signet-recall": {
      at: "prompt",
      until: "input",
      messages: [{ role: "custom", customType: "signet-memory", content: "RECALL", display: false }],
    },
  },
};

test("select keeps what the table names, counts arrays, drops the rest", () => {
  const event = {
    type: "session_before_compact",
    preparation: { tokensBefore: 9, messagesToSummarize: [1, 2, 3], fileOps: { big: true } },
    branchEntries: [1, 2],
    signal: {},
  };
  const spec = SPEC.events.session_before_compact.fields;
  assert.deepEqual(shim.select(event, spec), {
    type: "session_before_compact",
    preparation: { tokensBefore: 9, messagesToSummarize: 3 },
  });
  assert.deepEqual(shim.select({ type: "input", text: "x" }, SPEC.events.input.fields), {
    type: "input",
    text: "x",
  });
});

test("the session is described, with entries only while its file is not on disk", () => {
  const meta = shim.describeSession(fakeCtx(), "meta");
  assert.deepEqual(meta, {
    id: "sess-1",
    file: null,
    cwd: "/work/atlas",
    leafId: "leaf-1",
    persisted: false,
    onDisk: false,
  });
  const unsaved = shim.describeSession(fakeCtx(), "transcript");
  assert.equal(unsaved.entries.length, 1);
  assert.equal(unsaved.header.id, "sess-1");
  const saved = shim.describeSession(fakeCtx({ file: SHIM, persisted: true }), "transcript");
  assert.equal(saved.onDisk, true);
  assert.equal("entries" in saved, false);
});

test("withSlots puts start slots first and prompt slots after the last user message", () => {
  const state = shim.createState();
  state.apply(SESSION_SLOT);
  state.apply(RECALL_SLOT);
  const messages = [
    { role: "user", content: "one" },
    { role: "assistant", content: "a" },
    { role: "user", content: "two" },
    { role: "assistant", content: "calling a tool" },
    { role: "toolResult", content: "done" },
  ];
  const out = shim.withSlots(messages, state.slots);
  assert.deepEqual(
    out.map((m) => m.content),
    ["SESSION", "one", "a", "two", "RECALL", "calling a tool", "done"],
  );
  assert.equal(messages.length, 5, "the event's own array is left as it was");
});

test("apply merges carry, drops emptied slots, and returns the result", () => {
  const state = shim.createState();
  assert.equal(state.apply({ carry: { compaction: "s:1", ended: "x" } }), undefined);
  state.apply({ carry: { ended: null } });
  assert.deepEqual(state.carry, { compaction: "s:1" });
  state.apply(RECALL_SLOT);
  state.apply({ context: { "signet-recall": { messages: [] } } });
  assert.equal(state.slots.size, 0);
  assert.deepEqual(state.apply({ result: { action: "continue" } }), { action: "continue" });
  assert.equal(state.apply(null), undefined);
});

test("forwards each listed event with its session and carry, and applies the answers", async () => {
  const pi = fakePi();
  const { sent, send } = recorder({
    session_start: SESSION_SLOT,
    input: RECALL_SLOT,
    session_before_compact: { carry: { compaction: "sess-1:leaf-1" } },
  });
  shim.default(pi, { env: {}, spec: SPEC, send });
  assert.deepEqual([...pi.handlers.keys()].sort(), [
    "context",
    "input",
    "session_before_compact",
    "session_shutdown",
    "session_start",
  ]);
  const ctx = fakeCtx();
  await pi.fire("session_start", { reason: "startup" }, ctx);
  await pi.fire("input", { text: "hello", images: [{}], source: "rpc" }, ctx);
  const request = await pi.fire("context", { messages: [{ role: "user", content: "hello" }] }, ctx);
  assert.deepEqual(
    request.messages.map((m) => m.content),
    ["SESSION", "hello", "RECALL"],
  );
  await pi.fire("session_before_compact", { preparation: { tokensBefore: 5 } }, ctx);
  await pi.fire("session_shutdown", { reason: "quit" }, ctx);

  assert.deepEqual(
    sent.map((s) => s.event),
    ["session_start", "input", "session_before_compact", "session_shutdown"],
  );
  assert.ok(sent.every((s) => s.harness === "pi"));
  assert.deepEqual(sent[1].payload.images, 1);
  assert.equal(sent[1].payload.source, undefined, "fields the table does not name stay behind");
  assert.equal(sent[1].options.timeoutMs, 6000);
  assert.deepEqual(sent[2].payload.carry, {});
  assert.deepEqual(sent[3].payload.carry, { compaction: "sess-1:leaf-1" });
  assert.equal(sent[3].payload.session.entries.length, 1);
});

test("a slot ends when its until event fires, even if that event's answer never comes", async () => {
  const pi = fakePi();
  let calls = 0;
  const { send } = recorder({
    input: () => (calls++ === 0 ? RECALL_SLOT : null),
  });
  shim.default(pi, { env: {}, spec: SPEC, send });
  const ctx = fakeCtx();
  await pi.fire("input", { text: "first" }, ctx);
  let request = await pi.fire("context", { messages: [{ role: "user", content: "first" }] }, ctx);
  assert.equal(request.messages.length, 2);
  await pi.fire("input", { text: "second" }, ctx);
  request = await pi.fire("context", { messages: [{ role: "user", content: "second" }] }, ctx);
  assert.equal(request, undefined, "no slot is left, so the request is not touched");
});

test("events go one at a time, each with the carry the one before it set", async () => {
  const pi = fakePi();
  const sent = [];
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  const send = async (harness, event, payload) => {
    sent.push(JSON.parse(JSON.stringify(payload.carry)));
    if (sent.length === 1) {
      await gate;
      return { carry: { compaction: "sess-1:leaf-1" } };
    }
    return null;
  };
  shim.default(pi, { env: {}, spec: SPEC, send });
  const ctx = fakeCtx();
  const first = pi.fire("session_before_compact", { preparation: {} }, ctx);
  const second = pi.fire("session_before_compact", { preparation: {} }, ctx);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(sent.length, 1, "the second waits for the first answer");
  release();
  await Promise.all([first, second]);
  assert.deepEqual(sent, [{}, { compaction: "sess-1:leaf-1" }]);
});

test("a failing transport or a throwing session manager never reaches pi", async () => {
  const pi = fakePi();
  shim.default(pi, {
    env: {},
    spec: SPEC,
    send: async () => {
      throw new Error("boom");
    },
  });
  assert.equal(await pi.fire("input", { text: "x" }, fakeCtx()), undefined);
  const broken = { cwd: "/w", sessionManager: {} };
  assert.equal(await pi.fire("input", { text: "x" }, broken), undefined);
});

test("SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 registers nothing", () => {
  for (const env of [{ SIGNET_BYPASS: "1" }, { SIGNET_NO_HOOKS: "1" }]) {
    const pi = fakePi();
    shim.default(pi, { env, spec: SPEC, send: async () => null });
    assert.equal(pi.handlers.size, 0);
  }
});

test("the spec file beside the shim is read when none is given", () => {
  const pi = fakePi();
  shim.default(pi, { env: {}, send: async () => null });
  assert.ok(pi.handlers.has("session_start") && pi.handlers.has("context"));
});

const TOOL_SPEC = {
  ...SPEC,
  tools: [
    {
      name: "memory_search",
      label: "memory search",
      description: "Search long-term memory.",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      timeoutMs: 30000,
    },
  ],
};

function toolPi() {
  const pi = fakePi();
  pi.tools = [];
  pi.registerTool = (tool) => pi.tools.push(tool);
  return pi;
}

test("the listed memory tools are registered with pi and call the tool set with the session", async () => {
  const pi = toolPi();
  const calls = [];
  const callTool = async (harness, name, args, context, options) => {
    calls.push({ harness, name, args, context, options });
    return { result: { results: [{ id: "m1", content: "blue-green deploys" }] } };
  };
  shim.default(pi, { env: { SIGNET_AGENT_ID: "a-1" }, spec: TOOL_SPEC, send: async () => null, callTool });
  assert.equal(pi.tools.length, 1);
  const tool = pi.tools[0];
  assert.equal(tool.name, "memory_search");
  assert.equal(tool.label, "memory search");
  assert.deepEqual(tool.parameters, TOOL_SPEC.tools[0].parameters);
  const out = await tool.execute("call-1", { query: "deploys" }, undefined, undefined, fakeCtx());
  assert.deepEqual(out, {
    content: [{ type: "text", text: JSON.stringify({ results: [{ id: "m1", content: "blue-green deploys" }] }) }],
    details: { results: [{ id: "m1", content: "blue-green deploys" }] },
  });
  assert.deepEqual(calls[0].args, { query: "deploys" });
  assert.deepEqual(calls[0].context, { sessionKey: "sess-1", project: "/work/atlas", agentId: "a-1" });
  assert.equal(calls[0].harness, "pi");
  assert.equal(calls[0].options.timeoutMs, 30000);
});

test("a failed tool call reaches pi as a thrown error with the readable message", async () => {
  const pi = toolPi();
  const callTool = async () => ({ error: "memory_search failed: cannot connect to the Signet daemon" });
  shim.default(pi, { env: {}, spec: TOOL_SPEC, send: async () => null, callTool });
  await assert.rejects(
    pi.tools[0].execute("c", { query: "x" }, undefined, undefined, fakeCtx()),
    /memory_search failed: cannot connect/,
  );
});

test("no tools without a registerTool or a tools list; bypass registers none", () => {
  const plain = fakePi();
  shim.default(plain, { env: {}, spec: TOOL_SPEC, send: async () => null });
  assert.ok(plain.handlers.has("input"));
  const pi = toolPi();
  shim.default(pi, { env: {}, spec: SPEC, send: async () => null });
  assert.equal(pi.tools.length, 0);
  const off = toolPi();
  shim.default(off, { env: { SIGNET_BYPASS: "1" }, spec: TOOL_SPEC, send: async () => null });
  assert.equal(off.tools.length, 0);
});
