// The OpenCode plugin shim with a stand-in transport: what it forwards, and how
// it applies what comes back. Run with `node --test`.

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const SHIM = join(HERE, "..", "..", "signet_adapter_opencode", "shim", "signet-sdk.js");
const TRANSPORT = join(HERE, "..", "..", "..", "..", "signet_sdk", "shims", "transport.mjs");

// Laid out as the installer lays it out: plugins/signet-sdk.js + plugins/signet-sdk/transport.mjs.
const plugins = mkdtempSync(join(tmpdir(), "signet-opencode-shim-"));
mkdirSync(join(plugins, "signet-sdk"));
copyFileSync(SHIM, join(plugins, "signet-sdk.js"));
copyFileSync(TRANSPORT, join(plugins, "signet-sdk", "transport.mjs"));
const shimModule = await import(pathToFileURL(join(plugins, "signet-sdk.js")).href);
const { SignetMemory } = shimModule;

const SPEC = {
  harness: "opencode",
  events: {
    "session.created": { hook: "event", fields: { sessionID: true, info: { parentID: true } }, timeoutMs: 11000 },
    "chat.message": {
      hook: "chat.message",
      fields: { sessionID: true, model: { providerID: true, modelID: true }, parts: { type: true, text: true } },
      timeoutMs: 6000,
    },
    "session.idle": {
      hook: "event",
      fields: { sessionID: true },
      messages: { info: { id: true, role: true }, parts: { type: true, text: true } },
      timeoutMs: 11000,
      lane: "writes",
    },
    "experimental.session.compacting": { hook: "experimental.session.compacting", fields: { sessionID: true } },
    "session.deleted": { hook: "event", fields: { sessionID: true }, lane: "writes" },
    "session.end": { hook: "held", timeoutMs: 11000, lane: "writes" },
  },
};

const MODEL = { providerID: "fake", id: "fake-model" };
const SMALL = { providerID: "fake", id: "fake-small" };

function setup(answers = {}, extra = {}) {
  const sent = [];
  const syncSent = [];
  const client = {
    session: {
      messages: async ({ path }) => ({
        data: [
          { info: { id: "m1", role: "user", secret: "dropped" }, parts: [{ type: "text", text: "hi", id: "p" }] },
          { info: { id: "m2", role: "assistant" }, parts: [{ type: "step-start" }, { type: "text", text: `for ${path.id}` }] },
        ],
      }),
    },
  };
  const options = {
    spec: SPEC,
    env: extra.env || {},
    send: async (harness, event, payload, opts) => {
      sent.push({ harness, event, payload, opts });
      const answer = answers[event];
      if (answer instanceof Error) throw answer;
      return typeof answer === "function" ? answer(payload) : answer ?? null;
    },
    sendSync: (harness, event, payload, opts) => {
      syncSent.push({ harness, event, payload, opts });
      return null;
    },
  };
  return { ctx: { directory: "/home/dev/atlas", client, signetOptions: options }, sent, syncSent };
}

async function transform(hooks, sessionID, model = MODEL) {
  const output = { system: ["base prompt"] };
  await hooks["experimental.chat.system.transform"]({ sessionID, model }, output);
  return output.system.slice(1);
}

test("the module exports the plugin function and nothing else (OpenCode calls every export)", () => {
  assert.deepEqual(Object.keys(shimModule), ["SignetMemory"]);
});

test("chat.message is forwarded with the selected fields, the directory and the carry", async () => {
  const { ctx, sent } = setup({ "chat.message": { carry: { "started:s1": true } } });
  const hooks = await SignetMemory(ctx);
  const output = {
    message: { id: "msg1", model: { providerID: "fake", modelID: "fake-model" } },
    parts: [{ type: "text", text: "How?", id: "prt1" }],
  };
  await hooks["chat.message"]({ sessionID: "s1" }, output);
  await hooks["chat.message"]({ sessionID: "s1" }, output);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0].payload, {
    type: "chat.message",
    sessionID: "s1",
    model: { providerID: "fake", modelID: "fake-model" },
    parts: [{ type: "text", text: "How?" }],
    directory: "/home/dev/atlas",
    carry: {},
  });
  assert.equal(sent[0].harness, "opencode");
  assert.equal(sent[0].opts.timeoutMs, 6000);
  assert.deepEqual(sent[1].payload.carry, { "started:s1": true });
});

test("held system text goes to the matching session and model; uses and until are honoured", async () => {
  const slots = {
    system: {
      "session:s1": { session: "s1", text: "START", model: "fake/fake-model", uses: 1 },
      "recall:s1": { session: "s1", text: "RECALL", model: "fake/fake-model", until: "chat.message" },
    },
  };
  let answer = slots;
  const { ctx } = setup({ "chat.message": () => answer });
  const hooks = await SignetMemory(ctx);
  await hooks["chat.message"]({ sessionID: "s1" }, { parts: [] });
  assert.deepEqual(await transform(hooks, "s1", SMALL), []); // the title request
  assert.deepEqual(await transform(hooks, "s2"), []); // another session
  assert.deepEqual(await transform(hooks, "s1"), ["START", "RECALL"]);
  assert.deepEqual(await transform(hooks, "s1"), ["RECALL"]); // a tool follow-up of the turn
  answer = null; // the next prompt recalls nothing: the old recall is gone
  await hooks["chat.message"]({ sessionID: "s1" }, { parts: [] });
  assert.deepEqual(await transform(hooks, "s1"), []);
});

test("a prompt never waits behind the previous turn's writes; a lane keeps its order", async () => {
  let finishIdle;
  const order = [];
  const { ctx } = setup({
    "session.idle": () => new Promise((resolve) => (finishIdle = () => resolve(null))),
    "session.deleted": () => (order.push("deleted"), null),
    "chat.message": () => (order.push("chat"), null),
  });
  const hooks = await SignetMemory(ctx);
  const idle = hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
  const deleted = hooks.event({ event: { type: "session.deleted", properties: { sessionID: "s1" } } });
  await hooks["chat.message"]({ sessionID: "s1" }, { parts: [] });
  assert.deepEqual(order, ["chat"]); // the idle write is still in flight
  finishIdle();
  await idle;
  await deleted;
  assert.deepEqual(order, ["chat", "deleted"]);
});

test("session.idle attaches the session's messages, cut down to the selected fields", async () => {
  const { ctx, sent } = setup();
  const hooks = await SignetMemory(ctx);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
  await hooks.event({ event: { type: "message.updated", properties: { sessionID: "s1" } } });
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].payload.messages, [
    { info: { id: "m1", role: "user" }, parts: [{ type: "text", text: "hi" }] },
    { info: { id: "m2", role: "assistant" }, parts: [{ type: "step-start" }, { type: "text", text: "for s1" }] },
  ]);
});

test("compaction guidance is pushed onto output.context", async () => {
  const { ctx } = setup({ "experimental.session.compacting": { push: { context: ["KEEP DECISIONS"] } } });
  const hooks = await SignetMemory(ctx);
  const output = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: "s1" }, output);
  assert.deepEqual(output.context, ["KEEP DECISIONS"]);
});

test("a held session end is sent synchronously at exit, once", async () => {
  const held = { event: "session.end", payload: { type: "session.end", sessionID: "s1", transcript: "User: hi" } };
  const { ctx, syncSent } = setup({ "session.idle": { hold: { "end:s1": held } } });
  const before = process.listeners("exit").length;
  const hooks = await SignetMemory(ctx);
  const listener = process.listeners("exit")[before];
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
  listener(0);
  listener(0);
  process.removeListener("exit", listener);
  assert.equal(syncSent.length, 1);
  assert.equal(syncSent[0].event, "session.end");
  assert.equal(syncSent[0].payload.reason, "exit");
  assert.equal(syncSent[0].payload.transcript, "User: hi");
  assert.equal(syncSent[0].opts.timeoutMs, 11000);
});

test("a released hold is forwarded now with the reason, and not again at exit", async () => {
  const held = { event: "session.end", payload: { type: "session.end", sessionID: "s1" } };
  const { ctx, sent, syncSent } = setup({
    "session.idle": { hold: { "end:s1": held } },
    "session.deleted": { release: { "end:s1": "session.deleted" }, carry: { "ended:s1": true } },
  });
  const before = process.listeners("exit").length;
  const hooks = await SignetMemory(ctx);
  const listener = process.listeners("exit")[before];
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
  await hooks.event({ event: { type: "session.deleted", properties: { info: { id: "s1" } } } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  listener(0);
  process.removeListener("exit", listener);
  const ends = sent.filter((s) => s.event === "session.end");
  assert.equal(ends.length, 1);
  assert.equal(ends[0].payload.reason, "session.deleted");
  assert.deepEqual(ends[0].payload.carry, { "ended:s1": true });
  assert.equal(syncSent.length, 0);
});

test("a failing transport never throws into OpenCode", async () => {
  const { ctx } = setup({ "chat.message": new Error("boom"), "session.idle": new Error("boom") });
  const hooks = await SignetMemory(ctx);
  await hooks["chat.message"]({ sessionID: "s1" }, { parts: [] });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
  await hooks.event({ event: null });
  await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, null);
});

test("SIGNET_BYPASS=1 and SIGNET_NO_HOOKS=1 turn the plugin off", async () => {
  for (const env of [{ SIGNET_BYPASS: "1" }, { SIGNET_NO_HOOKS: "1" }]) {
    const { ctx, sent } = setup({}, { env });
    assert.deepEqual(await SignetMemory(ctx), {});
    assert.equal(sent.length, 0);
  }
});

test("messages OpenCode could not give are left out, never sent as an empty session", async () => {
  // OpenCode's SDK client answers a failed call with {error} rather than throwing.
  const failing = [
    async () => ({ error: { name: "NotFoundError" }, data: undefined }),
    async () => {
      throw new Error("ECONNREFUSED");
    },
  ];
  for (const messages of failing) {
    const { ctx, sent } = setup();
    ctx.client = { session: { messages } };
    const hooks = await SignetMemory(ctx);
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
    assert.equal(sent.length, 1);
    assert.equal("messages" in sent[0].payload, false); // the translator answers neutral
  }
});

test("a hook called without its input or output never throws into OpenCode", async () => {
  const { ctx } = setup();
  const hooks = await SignetMemory(ctx);
  for (const [name, hook] of Object.entries(hooks)) {
    await hook(); // resolves: no TypeError reaches OpenCode
    await hook(null, null);
  }
});
