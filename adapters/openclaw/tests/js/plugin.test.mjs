// The OpenClaw plugin on its own: what it subscribes, what it forwards, how it
// applies answers, with a fake OpenClaw api and a fake transport. Run:
// node --test adapters/openclaw/tests/js/ (the pytest suite runs it too). The
// plugin is copied next to the core's transport in temporary directories, as
// the installer lays it out and as OpenClaw copies it once per registration.

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const PLUGIN = join(HERE, "..", "..", "signet_adapter_openclaw", "plugin", "index.mjs");
const TRANSPORT = join(HERE, "..", "..", "..", "..", "signet_sdk", "shims", "transport.mjs");

const SCOPE = ["ctx.sessionKey", "event.sessionKey", "ctx.sessionId", "event.sessionId"];
const SPEC = {
  harness: "openclaw",
  scope: SCOPE,
  events: {
    session_start: { fields: { sessionId: true, sessionKey: true }, ctx: { sessionKey: true }, timeoutMs: 16000 },
    before_prompt_build: {
      fields: {
        prompt: true,
        messageCount: ["count", "messages"],
        lastAssistant: ["findLast", "messages", { role: "assistant" }, { content: true }],
        compactionSummary: ["find", "messages", { role: "compactionSummary" }, { summary: true }],
      },
      ctx: { sessionKey: true, workspaceDir: true },
      result: true,
      timeoutMs: 6000,
    },
    agent_end: { fields: { success: true }, ctx: { sessionKey: true }, keep: { messages: "messages" }, timeoutMs: 11000 },
    session_end: { fields: { reason: true }, ctx: { sessionKey: true }, attach: ["messages"], timeoutMs: 11000 },
    after_compaction: {
      fields: { compactedCount: true },
      ctx: { sessionKey: true },
      read: { compactionEntry: ["sessionFile", { type: "compaction" }, { summary: true }] },
      timeoutMs: 11000,
    },
  },
};

const dirs = [];
let copyA;
let copyB;

async function copy(spec = SPEC) {
  const dir = mkdtempSync(join(tmpdir(), "signet-openclaw-plugin-"));
  dirs.push(dir);
  copyFileSync(PLUGIN, join(dir, "index.mjs"));
  copyFileSync(TRANSPORT, join(dir, "transport.mjs"));
  writeFileSync(join(dir, "signet-openclaw.json"), JSON.stringify(spec));
  return import(pathToFileURL(join(dir, "index.mjs")).href);
}

before(async () => {
  copyA = await copy();
  copyB = await copy();
});

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fakeApi(mode = "full") {
  const handlers = new Map();
  return {
    registrationMode: mode,
    handlers,
    on(name, handler) {
      assert.ok(!handlers.has(name), `${name} subscribed twice`);
      handlers.set(name, handler);
    },
    fire(name, event, ctx) {
      return handlers.get(name)(event, ctx);
    },
  };
}

function recorder(answers = {}) {
  const sent = [];
  const send = async (harness, event, payload, options) => {
    sent.push({ harness, event, payload: JSON.parse(JSON.stringify(payload)), options });
    const answer = answers[event];
    return typeof answer === "function" ? answer(payload) : (answer ?? null);
  };
  return { sent, send };
}

const USER = { role: "user", content: "hi" };
const ASSISTANT = { role: "assistant", content: [{ type: "text", text: "hello" }] };
const SUMMARY = { role: "compactionSummary", summary: "S1", tokensBefore: 9 };

test("select keeps what the table names and derives fields from arrays", () => {
  const event = { prompt: "p", messages: [SUMMARY, USER, ASSISTANT, USER], junk: { big: true } };
  assert.deepEqual(copyA.select(event, SPEC.events.before_prompt_build.fields), {
    prompt: "p",
    messageCount: 4,
    lastAssistant: { content: ASSISTANT.content },
    compactionSummary: { summary: "S1" },
  });
  assert.deepEqual(copyA.select({ prompt: "p", messages: [] }, SPEC.events.before_prompt_build.fields), {
    prompt: "p",
    messageCount: 0,
  });
  assert.equal(copyA.select(undefined, { a: true }), undefined);
});

function sessionFile() {
  const dir = mkdtempSync(join(tmpdir(), "signet-openclaw-session-"));
  dirs.push(dir);
  const path = join(dir, "s1.jsonl");
  const rows = [
    { type: "session", id: "s1", cwd: "/w" },
    { type: "message", message: USER },
    { type: "compaction", id: "c1", summary: "OLD" },
    { type: "message", message: ASSISTANT },
    { type: "compaction", id: "c2", summary: "NEW", firstKeptEntryId: "m9" },
    { type: "message", message: USER },
  ];
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

test("lastLine reads the last matching entry of a JSON-lines file, and only of a file", async () => {
  const path = sessionFile();
  assert.deepEqual(await copyA.lastLine(path, { type: "compaction" }, { summary: true }), { summary: "NEW" });
  assert.deepEqual(await copyA.lastLine(path, { type: "session" }, { cwd: true }), { cwd: "/w" });
  assert.equal(await copyA.lastLine(path, { type: "nothing" }, true), undefined);
  assert.equal(await copyA.lastLine("sqlite:main:s1:/x/sessions.json", { type: "compaction" }, true), undefined);
  assert.equal(await copyA.lastLine("relative.jsonl", { type: "compaction" }, true), undefined);
  assert.equal(await copyA.lastLine(path + ".missing", { type: "compaction" }, true), undefined);
  assert.equal(await copyA.lastLine(undefined, { type: "compaction" }, true), undefined);
});

test("a hook whose table says read forwards what it found in the session file", async () => {
  const api = fakeApi();
  const { sent, send } = recorder();
  copyA.subscribe(api, SPEC, { send, sessions: new Map(), env: {} });
  const ctx = { sessionKey: "k" };
  await api.fire("after_compaction", { compactedCount: 2, sessionFile: sessionFile() }, ctx);
  await api.fire("after_compaction", { compactedCount: 2, sessionFile: "sqlite:main:k:/x" }, ctx);
  assert.deepEqual(sent[0].payload.compactionEntry, { summary: "NEW" });
  assert.equal(sent[0].payload.sessionFile, undefined, "the path itself is not forwarded");
  assert.ok(!("compactionEntry" in sent[1].payload));
});

test("the scope is the first of the table's paths that is set", () => {
  assert.equal(copyA.scopeOf(SCOPE, { sessionKey: "e" }, { sessionKey: "c" }), "c");
  assert.equal(copyA.scopeOf(SCOPE, { sessionKey: "e" }, {}), "e");
  assert.equal(copyA.scopeOf(SCOPE, {}, { sessionId: "id" }), "id");
  assert.equal(copyA.scopeOf(SCOPE, {}, {}), null);
});

test("forwards the selected fields, the context and the carry; returns the result only where asked", async () => {
  const table = new Map();
  const api = fakeApi();
  const answer = { result: { prependContext: "CTX" }, carry: { started: true, turn: "t1" } };
  const { sent, send } = recorder({ before_prompt_build: answer, agent_end: { result: { no: 1 } } });
  copyA.subscribe(api, SPEC, { send, sessions: table, env: {} });
  assert.deepEqual([...api.handlers.keys()], Object.keys(SPEC.events));

  const ctx = { sessionKey: "agent:main:main", workspaceDir: "/w", hookInvocation: { assertActive() {} } };
  const got = await api.fire("before_prompt_build", { prompt: "p", messages: [USER] }, ctx);
  assert.deepEqual(got, { prependContext: "CTX" });
  assert.deepEqual(sent[0], {
    harness: "openclaw",
    event: "before_prompt_build",
    payload: { prompt: "p", messageCount: 1, ctx: { sessionKey: "agent:main:main", workspaceDir: "/w" }, carry: {} },
    options: { timeoutMs: 6000, env: {} },
  });
  assert.equal(await api.fire("agent_end", { success: true, messages: [USER] }, ctx), undefined);
  assert.deepEqual(sent[1].payload.carry, { started: true, turn: "t1" });
  assert.ok(!("messages" in sent[1].payload), "kept values are not forwarded unless attached");
});

test("kept values are attached where asked, and the end of a session forgets its state", async () => {
  const table = new Map();
  const api = fakeApi();
  const { sent, send } = recorder({ session_end: { end: true }, before_prompt_build: { carry: { started: true } } });
  copyA.subscribe(api, SPEC, { send, sessions: table, env: {} });
  const ctx = { sessionKey: "k1" };
  await api.fire("before_prompt_build", { prompt: "p", messages: [] }, ctx);
  await api.fire("agent_end", { success: true, messages: [USER, ASSISTANT] }, ctx);
  await api.fire("session_end", { reason: "shutdown", sessionKey: "k1" }, ctx);
  const ended = sent.find((s) => s.event === "session_end");
  assert.deepEqual(ended.payload.held, { messages: [USER, ASSISTANT] });
  assert.deepEqual(ended.payload.carry, { started: true });
  assert.equal(table.has("k1"), false);
  await api.fire("before_prompt_build", { prompt: "again", messages: [] }, ctx);
  assert.deepEqual(sent.at(-1).payload.carry, {}, "a new session under the same key starts clean");
});

test("sessions are kept apart, and hooks of one session run one at a time in order", async () => {
  const table = new Map();
  const api = fakeApi();
  const order = [];
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  const send = async (harness, event, payload) => {
    order.push(`${payload.ctx.sessionKey}:${event}:start`);
    if (event === "session_start") await gate;
    order.push(`${payload.ctx.sessionKey}:${event}:end`);
    return event === "session_start" ? { carry: { inject: payload.ctx.sessionKey } } : null;
  };
  copyA.subscribe(api, SPEC, { send, sessions: table, env: {} });
  const slow = api.fire("session_start", { sessionKey: "a" }, { sessionKey: "a" });
  const next = api.fire("before_prompt_build", { prompt: "p" }, { sessionKey: "a" });
  await api.fire("before_prompt_build", { prompt: "q" }, { sessionKey: "b" });
  assert.deepEqual(order, ["a:session_start:start", "b:before_prompt_build:start", "b:before_prompt_build:end"]);
  release();
  await Promise.all([slow, next]);
  assert.deepEqual(order.slice(3), ["a:session_start:end", "a:before_prompt_build:start", "a:before_prompt_build:end"]);
  assert.deepEqual(table.get("a").carry, { inject: "a" });
  assert.deepEqual(table.get("b").carry, {});
});

test("a failing transport or a bad answer never throws into OpenClaw", async () => {
  const api = fakeApi();
  const send = async () => {
    throw new Error("boom");
  };
  copyA.subscribe(api, SPEC, { send, sessions: new Map(), env: {} });
  assert.equal(await api.fire("before_prompt_build", { prompt: "p" }, { sessionKey: "k" }), undefined);
  const api2 = fakeApi();
  copyA.subscribe(api2, SPEC, { send: async () => "not an object", sessions: new Map(), env: {} });
  assert.equal(await api2.fire("before_prompt_build", { prompt: "p" }, undefined), undefined);
});

test("two copies of the plugin (one per registration) share one session table under a symbol", async () => {
  const holder = {};
  const table = copyA.sessions(holder);
  assert.equal(copyB.sessions(holder), table);
  assert.deepEqual(Object.keys(holder), [], "the table is not an enumerable property");
  assert.equal(copyA.sessions(), copyB.sessions());
  assert.notEqual(copyA.select, copyB.select, "they really are two module copies");
});

test("register subscribes only in the modes whose registries OpenClaw dispatches from", () => {
  const before = Object.getOwnPropertyNames(globalThis).sort();
  const fetchBefore = globalThis.fetch;
  const saved = { bypass: process.env.SIGNET_BYPASS, noHooks: process.env.SIGNET_NO_HOOKS };
  delete process.env.SIGNET_BYPASS;
  delete process.env.SIGNET_NO_HOOKS;
  try {
    for (const mode of ["full", "discovery"]) {
      const api = fakeApi(mode);
      copyA.default.register(api);
      assert.deepEqual([...api.handlers.keys()], Object.keys(SPEC.events), mode);
    }
    for (const mode of ["tool-discovery", "setup-only", "setup-runtime", "cli-metadata", "unknown"]) {
      const api = fakeApi(mode);
      copyA.default.register(api);
      assert.equal(api.handlers.size, 0, String(mode));
    }
    for (const name of ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"]) {
      process.env[name] = "1";
      const api = fakeApi("full");
      copyA.default.register(api);
      assert.equal(api.handlers.size, 0, name);
      delete process.env[name];
    }
    assert.doesNotThrow(() => copyA.default.register(null));
  } finally {
    if (saved.bypass !== undefined) process.env.SIGNET_BYPASS = saved.bypass;
    if (saved.noHooks !== undefined) process.env.SIGNET_NO_HOOKS = saved.noHooks;
  }
  assert.equal(globalThis.fetch, fetchBefore, "fetch is left alone");
  assert.deepEqual(Object.getOwnPropertyNames(globalThis).sort(), before, "no global name added");
  assert.equal(copyA.default.id, "signet-sdk");
});

const TOOL_SPEC = {
  ...SPEC,
  tools: [
    {
      name: "signet_memory_search",
      tool: "memory_search",
      description: "Search long-term memory.",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      timeoutMs: 30000,
    },
    {
      name: "signet_memory_store",
      tool: "memory_store",
      description: "Store a memory.",
      parameters: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
      timeoutMs: 30000,
    },
  ],
};

function toolApi(mode = "full") {
  const api = fakeApi(mode);
  api.tools = [];
  api.registerTool = (factory, opts) => api.tools.push({ factory, opts });
  return api;
}

test("the listed memory tools are registered per tool context and call the tool set", async () => {
  const api = toolApi();
  const calls = [];
  const callTool = async (harness, name, args, context, options) => {
    calls.push({ harness, name, args, context, options });
    return { result: { results: [{ id: "m1" }] } };
  };
  copyA.registerTools(api, TOOL_SPEC, { env: {}, callTool });
  assert.deepEqual(api.tools.map((t) => t.opts), [
    { name: "signet_memory_search" },
    { name: "signet_memory_store" },
  ]);
  const tool = api.tools[0].factory({ sessionKey: "agent:main:s1", workspaceDir: "/w/atlas", agentId: "main" });
  assert.equal(tool.name, "signet_memory_search");
  assert.deepEqual(tool.parameters, TOOL_SPEC.tools[0].parameters);
  const out = await tool.execute("call-1", { query: "deploys" });
  assert.deepEqual(out, {
    content: [{ type: "text", text: JSON.stringify({ results: [{ id: "m1" }] }) }],
    details: { results: [{ id: "m1" }] },
  });
  assert.deepEqual(calls[0], {
    harness: "openclaw",
    name: "memory_search",
    args: { query: "deploys" },
    context: { sessionKey: "agent:main:s1", project: "/w/atlas", agentId: "main" },
    options: { timeoutMs: 30000, env: {} },
  });
});

test("a failed tool call throws its readable message for OpenClaw to report", async () => {
  const api = toolApi();
  const callTool = async () => ({ error: "memory_store failed: the daemon answered 503" });
  copyA.registerTools(api, TOOL_SPEC, { env: {}, callTool });
  const tool = api.tools[1].factory(undefined);
  await assert.rejects(tool.execute("c", { content: "x" }), /memory_store failed: the daemon answered 503/);
});

test("register adds the tools in every live mode, tool-discovery included, and hooks only where dispatched", async () => {
  const withTools = await copy(TOOL_SPEC);
  const saved = { bypass: process.env.SIGNET_BYPASS, noHooks: process.env.SIGNET_NO_HOOKS };
  delete process.env.SIGNET_BYPASS;
  delete process.env.SIGNET_NO_HOOKS;
  try {
    for (const [mode, tools, hooks] of [
      ["full", 2, true],
      ["discovery", 2, true],
      ["tool-discovery", 2, false],
      ["setup-only", 0, false],
      ["cli-metadata", 0, false],
    ]) {
      const api = toolApi(mode);
      withTools.default.register(api);
      assert.equal(api.tools.length, tools, mode);
      assert.equal(api.handlers.size > 0, hooks, mode);
    }
    process.env.SIGNET_BYPASS = "1";
    const off = toolApi("full");
    withTools.default.register(off);
    assert.equal(off.tools.length + off.handlers.size, 0);
  } finally {
    delete process.env.SIGNET_BYPASS;
    if (saved.bypass !== undefined) process.env.SIGNET_BYPASS = saved.bypass;
    if (saved.noHooks !== undefined) process.env.SIGNET_NO_HOOKS = saved.noHooks;
  }
});

// -- the end of a gateway process ---------------------------------------------------

const SHUTDOWN = {
  start: "gateway_start",
  stop: "gateway_stop",
  event: "session_end",
  fields: { reason: "shutdown" },
  timeoutMs: 300,
  exitTimeoutMs: 5000,
};
const GATEWAY_SPEC = {
  ...SPEC,
  events: {
    ...SPEC.events,
    session_end: {
      ...SPEC.events.session_end,
      ctx: { sessionKey: true, sessionId: true, agentId: true },
    },
  },
  shutdown: SHUTDOWN,
};

function gateway(answers = { session_end: { end: true } }, extra = {}) {
  const api = { ...fakeApi("full"), ...extra };
  const rec = recorder(answers);
  const exits = [];
  const synced = [];
  const state = { gateway: false, stopping: null, exitHooked: false, ended: new Set() };
  const table = new Map();
  copyA.subscribe(api, GATEWAY_SPEC, {
    send: rec.send,
    sessions: table,
    process: state,
    env: {},
    onExit: (fn) => exits.push(fn),
    sendSync: (harness, event, payload, options) => synced.push({ event, payload, options }),
  });
  return { api, sent: rec.sent, exits, synced, state, table };
}

async function served(api, key, sessionId = `id-${key}`) {
  const ctx = { sessionKey: key, sessionId, agentId: "main", workspaceDir: "/w" };
  await api.fire("before_prompt_build", { prompt: "p", messages: [] }, ctx);
  await api.fire("agent_end", { success: true, messages: [USER, ASSISTANT] }, ctx);
  return ctx;
}

test("a gateway that stops ends every session it served, once each, with the messages it holds", async () => {
  const { api, sent, exits, synced, table } = gateway();
  await api.fire("gateway_start", { port: 1 }, {});
  await served(api, "agent:main:main");
  await served(api, "agent:main:other");
  await api.fire("gateway_stop", { reason: "gateway stopping" }, {});
  const ends = sent.filter((s) => s.event === "session_end");
  assert.deepEqual(ends.map((s) => s.payload.sessionKey).sort(), ["agent:main:main", "agent:main:other"]);
  for (const end of ends) {
    assert.equal(end.payload.reason, "shutdown");
    assert.equal(end.payload.sessionId, `id-${end.payload.sessionKey}`);
    assert.deepEqual(end.payload.held, { messages: [USER, ASSISTANT] });
    assert.equal(end.payload.ctx.workspaceDir, "/w");
    assert.equal(end.options.timeoutMs, SHUTDOWN.timeoutMs);
  }
  assert.equal(table.size, 0);
  // OpenClaw's own session_end for one of them, after ours, is not sent again; nor is the exit.
  await api.fire("session_end", { reason: "shutdown", sessionKey: "agent:main:main" }, { sessionKey: "agent:main:main" });
  await api.fire("gateway_stop", { reason: "gateway stopping" }, {}); // a second copy's subscription
  assert.equal(sent.filter((s) => s.event === "session_end").length, 2);
  exits.forEach((fn) => fn());
  assert.deepEqual(synced, []);
  // A gateway started again in the same process ends its new sessions when it stops.
  await api.fire("gateway_start", { port: 1 }, {});
  await served(api, "agent:main:after-restart");
  await api.fire("gateway_stop", { reason: "gateway stopping" }, {});
  assert.equal(sent.filter((s) => s.event === "session_end").at(-1).payload.sessionKey, "agent:main:after-restart");
  assert.equal(exits.length, 1, "one exit handler per process");
});

test("a session OpenClaw ended itself before the stop is not ended twice", async () => {
  const { api, sent } = gateway();
  await api.fire("gateway_start", { port: 1 }, {});
  const ctx = await served(api, "agent:main:gw");
  await served(api, "agent:main:local-then-gateway");
  const own = api.fire("session_end", { reason: "shutdown", sessionKey: "agent:main:gw" }, ctx);
  await api.fire("gateway_stop", { reason: "gateway stopping" }, {}); // while OpenClaw's end runs
  await own;
  const ends = sent.filter((s) => s.event === "session_end").map((s) => s.payload.ctx.sessionKey);
  assert.deepEqual(ends.sort(), ["agent:main:gw", "agent:main:local-then-gateway"]);
});

test("ends the stop could not deliver in time go through the hook process at exit", async () => {
  const hang = () => new Promise(() => {}); // a server that never answers
  const { api, exits, synced } = gateway({ session_end: hang });
  await api.fire("gateway_start", { port: 1 }, {});
  await served(api, "agent:main:main");
  const started = Date.now();
  await api.fire("gateway_stop", { reason: "gateway stopping" }, {});
  assert.ok(Date.now() - started < SHUTDOWN.timeoutMs + 500, "the stop keeps its budget");
  assert.equal(exits.length, 1);
  exits[0]();
  assert.equal(synced.length, 1);
  assert.equal(synced[0].event, "session_end");
  assert.equal(synced[0].payload.sessionKey, "agent:main:main");
  assert.deepEqual(synced[0].payload.held, { messages: [USER, ASSISTANT] });
  assert.equal(synced[0].options.timeoutMs, SHUTDOWN.exitTimeoutMs);
  exits[0]();
  assert.equal(synced.length, 1, "once");
});

test("a process that is no gateway (agent --local) ends nothing at exit", async () => {
  const { api, sent, exits, synced } = gateway();
  await served(api, "agent:main:local");
  assert.equal(exits.length, 0);
  assert.equal(sent.filter((s) => s.event === "session_end").length, 0);
  assert.deepEqual(synced, []);
});

test("a compaction still pending when the process stops reaches the session's next process", async () => {
  const home = mkdtempSync(join(tmpdir(), "signet-openclaw-carry-"));
  dirs.push(home);
  const env = { XDG_STATE_HOME: home };
  const spec = { ...GATEWAY_SPEC, persist: ["compaction"] };
  const key = "agent:main:main";
  const ctx = { sessionKey: key, sessionId: "s-1", workspaceDir: "/w" };
  const answers = {
    session_end: { end: true },
    after_compaction: { carry: { compaction: "pending" } },
    before_prompt_build: (payload) => ({ carry: { started: true, compaction: null } }),
  };
  const run = (table) => {
    const api = fakeApi("full");
    const rec = recorder(answers);
    const state = { gateway: false, stopping: null, exitHooked: false, ended: new Set() };
    copyA.subscribe(api, spec, { send: rec.send, sessions: table, process: state, env, onExit: () => {}, sendSync: () => {} });
    return { api, sent: rec.sent };
  };
  // The gateway: a turn, a compaction, then it stops before the next prompt.
  const first = run(new Map());
  await first.api.fire("gateway_start", { port: 1 }, {});
  await first.api.fire("after_compaction", { compactedCount: 4 }, ctx);
  await first.api.fire("gateway_stop", {}, {});
  const end = first.sent.find((s) => s.event === "session_end");
  assert.equal(end.payload.carry.compaction, "pending");
  const kept = join(home, "signet-sdk", "plugin-carry", "openclaw");
  assert.equal(readdirSync(kept).length, 1);
  // The next process of that session: its first prompt hook knows the compaction is pending.
  const second = run(new Map());
  await second.api.fire("before_prompt_build", { prompt: "p", messages: [SUMMARY, USER] }, ctx);
  assert.equal(second.sent[0].payload.carry.compaction, "pending");
  assert.deepEqual(readdirSync(kept), [], "sent: nothing is left for a third");
  const third = run(new Map());
  await third.api.fire("before_prompt_build", { prompt: "p", messages: [SUMMARY, USER] }, ctx);
  assert.equal(third.sent[0].payload.carry.compaction, undefined);
});
