// The shim transport (signet_sdk/shims/transport.mjs) under node --test.
// Every server here is a local node:http server on 127.0.0.1, closed by the test.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import {
  callTool,
  discover,
  newEventId,
  send,
  sendSync,
  startServer,
} from "../../signet_sdk/shims/transport.mjs";

function fakeServer(handler) {
  return new Promise((resolve) => {
    const seen = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        handler(req, res, body);
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

function answer(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function isolatedEnv(extra = {}) {
  const home = mkdtempSync(join(tmpdir(), "signet-transport-"));
  return { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: join(home, "state"), SIGNET_ADAPTER_AUTOSTART: "0", ...extra };
}

function fakeSdk(home, output) {
  // A stand-in `signet-sdk`: records its argv, stdin and server token in
  // sdk-<subcommand>.json, prints `output`.
  const script = join(home, "fake-sdk.mjs");
  writeFileSync(
    script,
    `#!/usr/bin/env node
import { writeFileSync } from "node:fs";
import { join } from "node:path";
let input = "";
const argv = process.argv.slice(2);
const token = process.env.SIGNET_ADAPTER_SERVER_TOKEN || null;
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  writeFileSync(join(${JSON.stringify(home)}, "sdk-" + argv[0] + ".json"), JSON.stringify({ argv, input, token }));
  process.stdout.write(${JSON.stringify(output)});
});
`,
  );
  chmodSync(script, 0o755);
  return script;
}

// A signet-sdk stand-in that answers only after 10 s: past any deadline the tests set.
function slowSdk(home) {
  const script = join(home, "slow-sdk.mjs");
  writeFileSync(script, "#!/usr/bin/env node\nsetTimeout(() => process.stdout.write('{}'), 10000);\n");
  chmodSync(script, 0o755);
  return script;
}

test("explicit server: posts the payload with the token and returns the data", async () => {
  const server = await fakeServer((req, res) =>
    answer(res, 200, { data: { context: "CTX" }, stdout: "", exitCode: 0, degraded: null, pending: [] }),
  );
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url + "/", SIGNET_ADAPTER_TOKEN: "tok" });
    const out = await send("open code", "chat.message", { sessionID: "s1", parts: ["hi"] }, { env });
    assert.deepEqual(out, { context: "CTX" });
    assert.equal(server.seen.length, 1);
    assert.equal(server.seen[0].url, "/v1/open%20code/events/chat.message");
    assert.equal(server.seen[0].headers.authorization, "Bearer tok");
    assert.deepEqual(JSON.parse(server.seen[0].body), { sessionID: "s1", parts: ["hi"] });
  } finally {
    await server.close();
  }
});

test("state file of a live server is used; a dead pid is ignored", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { data: [1, 2] }));
  try {
    const env = isolatedEnv();
    mkdirSync(join(env.XDG_STATE_HOME, "signet-sdk"), { recursive: true });
    const file = join(env.XDG_STATE_HOME, "signet-sdk", "adapter-server.json");
    writeFileSync(file, JSON.stringify({ url: server.url, port: 1, pid: process.pid, token: null }));
    assert.deepEqual(discover(env), { url: server.url, token: null });
    assert.deepEqual(await send("h", "e", {}, { env }), [1, 2]);
    writeFileSync(file, JSON.stringify({ url: server.url, port: 1, pid: 999999999, token: null }));
    assert.equal(discover(env), null);
  } finally {
    await server.close();
  }
});

test("no server: the event runs as `signet-sdk hook` and a server start is attempted", async () => {
  const env = isolatedEnv({ SIGNET_ADAPTER_AUTOSTART: "1" });
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ from: "process" }));
  const out = await send("pi", "session_start", { sessionId: "p1" }, { env });
  assert.deepEqual(out, { from: "process" });
  const call = JSON.parse(readFileSync(join(env.HOME, "sdk-hook.json"), "utf8"));
  assert.deepEqual(call.argv, ["hook", "pi", "session_start"]);
  assert.deepEqual(JSON.parse(call.input), { sessionId: "p1" });
  assert.ok(existsSync(join(env.XDG_STATE_HOME, "signet-sdk", "adapter-server.lock")));
  assert.equal(startServer(env), false); // one start at a time
  // The detached server: a free port, an idle exit, and a fresh token outside argv.
  const started = join(env.HOME, "sdk-serve.json");
  for (let i = 0; i < 100 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
  const serve = JSON.parse(readFileSync(started, "utf8"));
  assert.deepEqual(serve.argv.slice(0, 3), ["serve", "--port", "0"]);
  assert.ok(serve.argv.includes("--idle-exit"));
  assert.match(serve.token, /^[0-9a-f]{64}$/);
  assert.ok(!serve.argv.join(" ").includes(serve.token));
});

test("a server that never answers costs the deadline, then null", async () => {
  const server = await fakeServer(() => {}); // holds every request
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    const started = Date.now();
    const out = await send("h", "e", {}, { env, timeoutMs: 300 });
    const took = Date.now() - started;
    assert.equal(out, null);
    assert.ok(took < 2000, `took ${took} ms`);
  } finally {
    server.closeAllConnections?.();
    await server.close();
  }
});

test("errors and odd input give null, never a throw", async () => {
  const server = await fakeServer((req, res) => answer(res, 500, { error: "boom" }));
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    assert.equal(await send("h", "e", {}, { env }), null);
    const circular = {};
    circular.self = circular;
    assert.equal(await send("h", "e", circular, { env }), null);
  } finally {
    await server.close();
  }
  const missing = isolatedEnv({ SIGNET_SDK_COMMAND: "/nonexistent/signet-sdk" });
  assert.equal(await send("h", "e", {}, { env: missing }), null);
});

test("bypass switches send nothing", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { data: 1 }));
  try {
    for (const flag of ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"]) {
      const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url, [flag]: "1" });
      assert.equal(await send("h", "e", {}, { env }), null);
    }
    assert.equal(server.seen.length, 0);
  } finally {
    await server.close();
  }
});

test("a hook process past the deadline is killed and the event skipped in time", async () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = slowSdk(env.HOME);
  const started = Date.now();
  const out = await send("h", "e", {}, { env, timeoutMs: 400 });
  const took = Date.now() - started;
  assert.equal(out, null);
  assert.ok(took < 1500, `took ${took} ms`);
});

test("a stale state file (nothing listening) falls through to the hook process", async () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ via: "process" }));
  mkdirSync(join(env.XDG_STATE_HOME, "signet-sdk"), { recursive: true });
  const probe = await fakeServer(() => {});
  const deadUrl = probe.url;
  await probe.close(); // the port is free again: connections are refused
  writeFileSync(
    join(env.XDG_STATE_HOME, "signet-sdk", "adapter-server.json"),
    JSON.stringify({ url: deadUrl, port: 1, pid: process.pid, token: "t" }),
  );
  assert.deepEqual(await send("h", "e", { a: 1 }, { env }), { via: "process" });
});

test("an event over the server's body limit (413) goes to the hook process, not lost", async () => {
  const server = await fakeServer((req, res) => answer(res, 413, { error: "request body over 4194304 bytes" }));
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ via: "process" }));
    const payload = { session: { id: "s-big" }, messages: ["x".repeat(5 * 1024 * 1024)] };
    assert.deepEqual(await send("pi", "agent_end", payload, { env }), { via: "process" });
    assert.equal(server.seen.length, 1);
    const call = JSON.parse(readFileSync(join(env.HOME, "sdk-hook.json"), "utf8"));
    assert.deepEqual(call.argv, ["hook", "pi", "agent_end"]); // refused unread: no event id
    assert.deepEqual(JSON.parse(call.input), payload);
  } finally {
    await server.close();
  }
});

test("a payload that cannot be serialised starts no hook process", async () => {
  const env = isolatedEnv();
  // A stand-in that marks its start at once (it would wait on stdin for the deadline).
  const script = join(env.HOME, "marking-sdk.mjs");
  const mark = join(env.HOME, "started");
  writeFileSync(script, `#!/usr/bin/env node\nimport { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(mark)}, "");\n`);
  chmodSync(script, 0o755);
  env.SIGNET_SDK_COMMAND = script;
  assert.equal(await send("pi", "agent_end", { count: 1n }, { env, timeoutMs: 5000 }), null);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(existsSync(mark), false);
});

test("callTool: server path posts the arguments with the context headers", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { results: [{ id: "m1" }] }));
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url, SIGNET_ADAPTER_TOKEN: "tok" });
    const context = { sessionKey: "s-1", project: "/srv/app", agentId: "agent-2" };
    const out = await callTool("pi", "memory_search", { query: "deploys" }, context, { env });
    assert.deepEqual(out, { result: { results: [{ id: "m1" }] } });
    const seen = server.seen[0];
    assert.equal(seen.url, "/v1/tools/memory_search");
    assert.equal(seen.headers.authorization, "Bearer tok");
    assert.equal(seen.headers["x-signet-harness"], "pi");
    assert.equal(seen.headers["x-signet-session-key"], "s-1");
    assert.equal(seen.headers["x-signet-project"], "%2Fsrv%2Fapp");
    assert.equal(seen.headers["x-signet-agent-id"], "agent-2");
    assert.equal(seen.headers["x-signet-context"], "uri");
    assert.deepEqual(JSON.parse(seen.body), { query: "deploys" });
  } finally {
    await server.close();
  }
});

test("callTool: a context of any text goes percent-encoded, on the server path", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { results: [] }));
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url, SIGNET_ADAPTER_AUTOSTART: "0" });
    const context = { sessionKey: "s-🚀", project: "/home/josé/项目", agentId: "a 1" };
    const out = await callTool("pi", "memory_search", { query: "q" }, context, { env });
    assert.deepEqual(out, { result: { results: [] } });
    const seen = server.seen[0].headers;
    assert.equal(seen["x-signet-session-key"], "s-%F0%9F%9A%80");
    assert.equal(seen["x-signet-project"], "%2Fhome%2Fjos%C3%A9%2F%E9%A1%B9%E7%9B%AE");
    assert.equal(seen["x-signet-agent-id"], "a%201");
  } finally {
    await server.close();
  }
});

test("callTool: an error answer becomes its readable message", async () => {
  const server = await fakeServer((req, res) =>
    answer(res, 422, { error: "query: memory_search: Field required", field: "query" }),
  );
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    const out = await callTool("pi", "memory_search", {}, {}, { env });
    assert.deepEqual(out, { error: "query: memory_search: Field required" });
  } finally {
    await server.close();
  }
});

test("callTool: no server runs `signet-sdk tools call` with the context as flags", async () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ result: { id: "m9", success: true } }));
  const out = await callTool("openclaw", "memory_store", { content: "x" }, { sessionKey: "k" }, { env });
  assert.deepEqual(out, { result: { id: "m9", success: true } });
  const call = JSON.parse(readFileSync(join(env.HOME, "sdk-tools.json"), "utf8"));
  assert.deepEqual(call.argv, ["tools", "call", "memory_store", "--harness", "openclaw", "--session-key", "k"]);
  assert.deepEqual(JSON.parse(call.input), { content: "x" });
});

test("callTool: a process that fails or says nothing gives an error, never a throw", async () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ error: "memory_get failed: not found" }));
  assert.deepEqual(await callTool("pi", "memory_get", { id: "x" }, null, { env }), {
    error: "memory_get failed: not found",
  });
  env.SIGNET_SDK_COMMAND = join(env.HOME, "missing-command");
  const out = await callTool("pi", "memory_get", { id: "x" }, {}, { env, timeoutMs: 2000 });
  assert.match(out.error, /memory_get/);
});

test("sendSync: always the hook process, even with a server running, and no server start", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { data: { via: "server" } }));
  const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url, SIGNET_ADAPTER_AUTOSTART: "1" });
  env.SIGNET_NO_HOOKS = undefined;
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ via: "process" }));
  const out = sendSync("opencode", "session.end", { sessionID: "s1", reason: "exit" }, { env });
  await server.close();
  assert.deepEqual(out, { via: "process" });
  assert.equal(server.seen.length, 0);
  const call = JSON.parse(readFileSync(join(env.HOME, "sdk-hook.json"), "utf8"));
  assert.deepEqual(call.argv, ["hook", "opencode", "session.end"]);
  assert.deepEqual(JSON.parse(call.input), { sessionID: "s1", reason: "exit" });
  assert.ok(!existsSync(join(env.XDG_STATE_HOME, "signet-sdk", "adapter-server.lock")));
});

test("sendSync: a slow process is killed at the deadline; failures and bypass give null", () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = slowSdk(env.HOME);
  const started = Date.now();
  assert.equal(sendSync("h", "e", {}, { env, timeoutMs: 400 }), null);
  assert.ok(Date.now() - started < 1500);
  assert.equal(sendSync("h", "e", {}, { env: { ...env, SIGNET_SDK_COMMAND: "/nonexistent" } }), null);
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, "not json");
  assert.equal(sendSync("h", "e", {}, { env }), null);
  assert.equal(sendSync("h", "e", {}, { env: { ...env, SIGNET_BYPASS: "1" } }), null);
  assert.ok(!existsSync(join(env.HOME, "sdk-hook.json")) || true);
});

test("each event is sent with a new id of its own (X-Signet-Event-Id)", async () => {
  const server = await fakeServer((req, res) => answer(res, 200, { data: null }));
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    await send("openclaw", "after_compaction", { summary: "s" }, { env });
    await send("openclaw", "after_compaction", { summary: "s" }, { env });
    const ids = server.seen.map((seen) => seen.headers["x-signet-event-id"]);
    for (const id of ids) assert.match(id, /^\d{20}-[0-9a-f]{16}$/);
    assert.notEqual(ids[0], ids[1]);
    // The time in front is now's, in nanoseconds: the outbox keeps events in order.
    const sent = Number(BigInt(ids[0].slice(0, 20)) / 1000000n);
    assert.ok(Math.abs(sent - Date.now()) < 60000, ids[0]);
    assert.match(newEventId(), /^\d{20}-[0-9a-f]{16}$/);
  } finally {
    await server.close();
  }
});

test("a server gone mid-event: the hook process gets the event's id (--event-id)", async () => {
  // Reads the whole event, then dies without answering (the connection is reset).
  const server = await fakeServer((req) => req.socket.destroy());
  try {
    const env = isolatedEnv({ SIGNET_ADAPTER_URL: server.url });
    env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ via: "process" }));
    const out = await send("openclaw", "after_compaction", { summary: "s" }, { env });
    assert.deepEqual(out, { via: "process" });
    const id = server.seen[0].headers["x-signet-event-id"];
    const call = JSON.parse(readFileSync(join(env.HOME, "sdk-hook.json"), "utf8"));
    assert.deepEqual(call.argv, ["hook", "openclaw", "after_compaction", "--event-id", id]);
    assert.deepEqual(JSON.parse(call.input), { summary: "s" });
  } finally {
    await server.close();
  }
});

test("a server that never took the event (refused): the hook process runs it as new", async () => {
  const env = isolatedEnv();
  env.SIGNET_SDK_COMMAND = fakeSdk(env.HOME, JSON.stringify({ via: "process" }));
  const probe = await fakeServer(() => {});
  await probe.close(); // nothing listens there any more: connections are refused
  env.SIGNET_ADAPTER_URL = probe.url;
  assert.deepEqual(await send("pi", "session_compact", { a: 1 }, { env }), { via: "process" });
  const call = JSON.parse(readFileSync(join(env.HOME, "sdk-hook.json"), "utf8"));
  assert.deepEqual(call.argv, ["hook", "pi", "session_compact"]);
});
