// The shared transport of every JavaScript harness shim: one native event in,
// the harness's structured output (or null) out. Dependency-free ES module for
// Node 20+ and Bun. It never throws, never writes to stdout, and never takes
// longer than the event's deadline.
//
// Where the event goes, in order:
//   1. SIGNET_ADAPTER_URL (+ SIGNET_ADAPTER_TOKEN): an explicit adapter server.
//   2. The state file a running `signet-sdk serve` writes:
//      ${XDG_STATE_HOME:-~/.local/state}/signet-sdk/adapter-server.json
//      ({url, port, pid, token}; ignored when its pid is gone).
//   3. Otherwise one server is started in the background (`signet-sdk serve
//      --port 0 --idle-exit N`, detached, one at a time under a lock file, with
//      a fresh token that only the state file shares; the server removes the
//      lock once it is up, and a second server for the same state directory
//      exits at once), and this event is served
//      by running `signet-sdk hook <harness> <event>` as a process with the
//      payload on stdin. SIGNET_ADAPTER_AUTOSTART=0 turns the start off.
//   A server that goes away in the middle of an event (the connection reset, or
//   refused) counts as none: the event takes the process path with the time left.
// Each native event gets one id (newEventId: "<unix time in ns, 20 digits>-<16
// hex>"), sent to the server as X-Signet-Event-Id: the server stores the
// event's writes under ids made from it. When the server went away after the
// event may have reached it (a reset, not a refused connection), the process
// path gets the same id (`signet-sdk hook ... --event-id ID`): it finds what the
// server stored, and sends what it cannot find as a repeat the daemon
// recognises, so no write is stored twice.
// sendSync() is for the moment a harness process exits, when nothing
// asynchronous runs any more: it always takes the process path (writes land in
// the durable outbox and a detached sender delivers them) and blocks for at
// most the event's deadline.
// callTool() runs a model's memory tool call the same way: the server's
// POST /v1/tools/<name>, else `signet-sdk tools call <name>` as a process.
// The `signet-sdk` command is SIGNET_SDK_COMMAND, else the "command" of a
// signet-sdk.json beside this file (installers write it), else `signet-sdk`.
// Below the transport, what every shim shares so that a shim only forwards
// its harness's events: hooksOff, loadSpec (its event table), select (the parts
// of a native event that table selects), mergeCarry and toolResult.

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const DEFAULT_TIMEOUT_MS = 15000;
const DEFAULT_TOOL_TIMEOUT_MS = 30000;
const IDLE_EXIT_SECONDS = 900;
const LOCK_STALE_MS = 15000;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const GONE = new Set(["ECONNREFUSED", "ENOTFOUND", "ECONNRESET", "EPIPE"]);
// Of those, the ones after which the server may have read the event and acted on it.
const MAYBE_SEEN = new Set(["ECONNRESET", "EPIPE"]);
const EVENT_ID_HEADER = "x-signet-event-id";

/** A new id for one native event: "<unix time in ns, 20 digits>-<16 hex digits>". */
export function newEventId() {
  const ns = (BigInt(Date.now()) * 1000000n).toString().padStart(20, "0");
  return `${ns}-${randomBytes(8).toString("hex")}`;
}

/** signet-sdk's state directory: ${XDG_STATE_HOME:-~/.local/state}/signet-sdk. */
export function stateDir(env = process.env) {
  const base = (env.XDG_STATE_HOME || "").trim();
  const root = base && isAbsolute(base) ? base : join(env.HOME || homedir(), ".local", "state");
  return join(root, "signet-sdk");
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return false;
  }
}

/** The adapter server to use: {url, token}, or null when none is running. */
export function discover(env = process.env) {
  const url = (env.SIGNET_ADAPTER_URL || "").trim();
  if (url) return { url: url.replace(/\/+$/, ""), token: env.SIGNET_ADAPTER_TOKEN || null };
  try {
    const record = JSON.parse(readFileSync(join(stateDir(env), "adapter-server.json"), "utf8"));
    if (typeof record.url !== "string" || !Number.isInteger(record.pid) || !alive(record.pid)) {
      return null;
    }
    return { url: record.url, token: typeof record.token === "string" ? record.token : null };
  } catch (error) {
    return null;
  }
}

/** The signet-sdk command as [program, ...args]. */
export function sdkCommand(env = process.env) {
  const explicit = (env.SIGNET_SDK_COMMAND || "").trim();
  if (explicit) return [explicit];
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    const config = JSON.parse(readFileSync(join(here, "signet-sdk.json"), "utf8"));
    if (Array.isArray(config.command) && config.command.every((w) => typeof w === "string")) {
      return config.command;
    }
  } catch (error) {
    // no config beside the transport: use the command on PATH
  }
  return ["signet-sdk"];
}

/**
 * POST a JSON body to the server with node:http (in Node and Bun; it starts
 * much faster than fetch). Resolves to accept(status, parsed answer), or
 * {unreachable: true, maybeSeen} when nothing listens (a stale state file) or
 * the server went away in the middle of the event (then nothing answers;
 * maybeSeen: it may have read the request first), or accept(0, null) for
 * anything else (no answer in time, not JSON, too big).
 */
function viaServer(server, path, payload, timeoutMs, accept, extraHeaders = {}) {
  const body = JSON.stringify(payload);
  const headers = {
    ...extraHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  };
  if (server.token) headers.authorization = `Bearer ${server.token}`;
  return new Promise((resolve) => {
    let done = false;
    let req;
    const finish = (value) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    const fail = () => finish(accept(0, null));
    const timer = setTimeout(() => {
      fail();
      req?.destroy();
    }, timeoutMs);
    try {
      const request = server.url.startsWith("https:") ? httpsRequest : httpRequest;
      req = request(server.url + path, { method: "POST", headers }, (res) => {
        const chunks = [];
        let size = 0;
        res.on("data", (chunk) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            fail();
            res.destroy();
          } else {
            chunks.push(chunk);
          }
        });
        res.on("error", fail);
        res.on("end", () => {
          let answer = null;
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch (error) {
            return fail();
          }
          finish(accept(res.statusCode, answer));
        });
      });
    } catch (error) {
      finish({ unreachable: true }); // not a URL this transport can reach
      return;
    }
    req.on("error", (error) => {
      // Refused: nothing listens (a stale state file). Reset: the server went away
      // in the middle of this event (killed, crashed). Either way no answer can
      // come from it: the event goes the process path with the time left.
      const gone = error && GONE.has(error.code);
      if (gone) finish({ unreachable: true, maybeSeen: MAYBE_SEEN.has(error.code) });
      else fail();
    });
    req.end(body);
  });
}

function eventAnswer(status, answer) {
  const ok = status >= 200 && status < 300 && answer && typeof answer === "object";
  return { data: ok && "data" in answer ? answer.data : null };
}

function eventOrTooBig(status, answer) {
  return status === 413 ? { tooBig: true } : eventAnswer(status, answer);
}

function viaProcess(command, args, payload, timeoutMs, env) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (value) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    let child;
    let input;
    try {
      input = JSON.stringify(payload); // before the spawn: a payload that cannot be sent starts nothing
      child = spawn(command[0], [...command.slice(1), ...args], {
        env,
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch (error) {
      finish(null);
      return;
    }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch (error) {
        // already gone
      }
      finish(null);
    }, timeoutMs);
    child.on("error", () => finish(null));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.length > MAX_ANSWER_BYTES) {
        child.kill("SIGKILL");
        finish(null);
      }
    });
    child.on("close", () => {
      const text = out.trim();
      if (!text) return finish(null);
      try {
        finish(JSON.parse(text));
      } catch (error) {
        finish(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/** Start one adapter server in the background, unless another start is under way. */
export function startServer(env = process.env) {
  const dir = stateDir(env);
  const lock = join(dir, "adapter-server.lock");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      if (Date.now() - statSync(lock).mtimeMs < LOCK_STALE_MS) return false;
      unlinkSync(lock);
    } catch (error) {
      // no lock yet
    }
    const fd = openSync(lock, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    // A server started by the previous lock holder records itself and then
    // removes the lock: with the lock ours, look again before starting another.
    if (discover(env)) {
      unlinkSync(lock);
      return false;
    }
    const command = sdkCommand(env);
    // The token travels in the environment, not argv: other users can read argv.
    const token = randomBytes(32).toString("hex");
    const child = spawn(
      command[0],
      [...command.slice(1), "serve", "--port", "0", "--idle-exit", String(IDLE_EXIT_SECONDS)],
      {
        env: { ...env, SIGNET_ADAPTER_SERVER_TOKEN: token },
        cwd: dir,
        detached: true,
        stdio: "ignore",
      },
    );
    child.on("error", () => {});
    child.unref();
    return true;
  } catch (error) {
    return false;
  }
}

/**
 * Send one native event; resolves to the structured output or null.
 * options.timeoutMs: the event's deadline (default SIGNET_ADAPTER_TIMEOUT_MS, else 15 s).
 */
export async function send(harness, event, payload, options = {}) {
  const env = options.env || process.env;
  try {
    if (hooksOff(env)) return null;
    const configured = Number(env.SIGNET_ADAPTER_TIMEOUT_MS);
    const timeoutMs = options.timeoutMs || (configured > 0 ? configured : DEFAULT_TIMEOUT_MS);
    const started = Date.now();
    const eventId = newEventId();
    let maybeSeen = false;
    const server = discover(env);
    if (server) {
      const path = `/v1/${encodeURIComponent(harness)}/events/${encodeURIComponent(event)}`;
      const headers = { [EVENT_ID_HEADER]: eventId };
      const answer = await viaServer(server, path, payload, timeoutMs, eventOrTooBig, headers);
      if (!answer.unreachable && !answer.tooBig) return answer.data;
      // Nothing listens there (a stale state file), or the server went away
      // mid-event: fall through to the process path, with the event's id when
      // the server may have stored or sent some of its writes already. An event
      // over the server's body limit (413, refused unread) goes that way too: the
      // hook process takes larger payloads, and its writes must not be lost.
      maybeSeen = Boolean(answer.maybeSeen);
    }
    if (env.SIGNET_ADAPTER_AUTOSTART !== "0") startServer(env);
    const left = timeoutMs - (Date.now() - started);
    if (left <= 0) return null;
    const args = ["hook", harness, event];
    if (maybeSeen) args.push("--event-id", eventId);
    return await viaProcess(sdkCommand(env), args, payload, left, childEnvOf(env));
  } catch (error) {
    return null;
  }
}

/**
 * Send one native event synchronously (for a process "exit" handler); returns
 * the structured output or null. Always the process path: an exit handler
 * cannot wait for a socket.
 */
export function sendSync(harness, event, payload, options = {}) {
  const env = options.env || process.env;
  try {
    if (hooksOff(env)) return null;
    const configured = Number(env.SIGNET_ADAPTER_TIMEOUT_MS);
    const timeoutMs = options.timeoutMs || (configured > 0 ? configured : DEFAULT_TIMEOUT_MS);
    const command = sdkCommand(env);
    const run = spawnSync(command[0], [...command.slice(1), "hook", harness, event], {
      env: childEnvOf(env),
      input: JSON.stringify(payload),
      stdio: ["pipe", "pipe", "ignore"],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: MAX_ANSWER_BYTES,
    });
    const text = run.stdout ? run.stdout.toString("utf8").trim() : "";
    return text ? JSON.parse(text) : null;
  } catch (error) {
    return null;
  }
}

function childEnvOf(env) {
  const childEnv = { ...env };
  delete childEnv.SIGNET_NO_HOOKS;
  return childEnv;
}

function toolAnswer(status, answer) {
  if (status >= 200 && status < 300 && answer && typeof answer === "object") {
    return { result: answer };
  }
  const message = answer && typeof answer.error === "string" ? answer.error : null;
  return { error: message || (status ? `the adapter server answered ${status}` : "no answer") };
}

/**
 * Run one memory tool call (what a model asked for); resolves to {result} or
 * {error: "<readable message>"}, never throws. Same discovery order as send():
 * the adapter server's POST /v1/tools/<name>, else `signet-sdk tools call
 * <name>` as a process. context: {sessionKey, project, agentId}.
 * options.timeoutMs: the call's deadline (default SIGNET_TOOL_TIMEOUT_MS, else 30 s).
 */
export async function callTool(harness, name, args, context = {}, options = {}) {
  const env = options.env || process.env;
  try {
    const configured = Number(env.SIGNET_TOOL_TIMEOUT_MS);
    const timeoutMs = options.timeoutMs || (configured > 0 ? configured : DEFAULT_TOOL_TIMEOUT_MS);
    const started = Date.now();
    const ctx = context || {};
    const server = discover(env);
    if (server) {
      // Headers carry only ASCII safely; a path or key may be any text.
      const headers = { "x-signet-harness": harness, "x-signet-context": "uri" };
      const put = (name, value) => {
        if (value) headers[name] = encodeURIComponent(String(value));
      };
      put("x-signet-session-key", ctx.sessionKey);
      put("x-signet-project", ctx.project);
      put("x-signet-agent-id", ctx.agentId);
      const path = `/v1/tools/${encodeURIComponent(name)}`;
      const answer = await viaServer(server, path, args || {}, timeoutMs, toolAnswer, headers);
      if (!answer.unreachable) return answer;
    }
    if (env.SIGNET_ADAPTER_AUTOSTART !== "0") startServer(env);
    const left = timeoutMs - (Date.now() - started);
    if (left <= 0) return { error: `${name}: no answer within ${timeoutMs} ms` };
    const flags = ["tools", "call", name, "--harness", harness];
    if (ctx.sessionKey) flags.push("--session-key", String(ctx.sessionKey));
    if (ctx.project) flags.push("--project", String(ctx.project));
    if (ctx.agentId) flags.push("--agent-id", String(ctx.agentId));
    const answer = await viaProcess(sdkCommand(env), flags, args || {}, left, childEnvOf(env));
    if (answer && typeof answer === "object" && "result" in answer) return { result: answer.result };
    if (answer && typeof answer.error === "string") return { error: answer.error };
    return { error: `${name}: no answer within ${timeoutMs} ms` };
  } catch (error) {
    return { error: `${name}: ${error && error.message ? error.message : "failed"}` };
  }
}

// What every shim shares besides the transport: its event table (the JSON spec
// the installer writes beside it), the parts of a native event that table
// selects, how an answer's carried markers update the shim's own, and how a
// memory tool's answer reaches the model.

/** Whether SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 turns every shim and event off. */
export function hooksOff(env = process.env) {
  return env.SIGNET_BYPASS === "1" || env.SIGNET_NO_HOOKS === "1";
}

/** The shim's event table `fileName` in `dir`; null when absent, malformed or without events. */
export function loadSpec(dir, fileName) {
  try {
    const spec = JSON.parse(readFileSync(join(dir, fileName), "utf8"));
    return spec && typeof spec.events === "object" ? spec : null;
  } catch (error) {
    return null;
  }
}

/** Whether `item` is an object whose fields equal every field of `match`. */
export function matches(item, match) {
  if (!item || typeof item !== "object") return false;
  return Object.entries(match).every(([key, value]) => item[key] === value);
}

/** A field derived from the array field of `value` an op names: ["count", f], ["find"|"findLast", f, match, pick]. */
function derive(value, [op, field, match, pick]) {
  const list = Array.isArray(value[field]) ? value[field] : undefined;
  if (!list) return undefined;
  if (op === "count") return list.length;
  if (op === "find") return select(list.find((item) => matches(item, match)), pick);
  if (op === "findLast") return select(list.findLast((item) => matches(item, match)), pick);
  return undefined;
}

/**
 * The parts of `value` that `rule` selects: true = as is, "count" = an array's
 * length, {} = those fields (of each element, when `value` is an array); inside
 * an object, ["count", f], ["find", f, match, pick] and ["findLast", f, match,
 * pick] derive a field from the array field f. Anything else selects nothing.
 */
export function select(value, rule) {
  if (rule === true) return value;
  if (rule === "count") return Array.isArray(value) ? value.length : undefined;
  if (!rule || typeof rule !== "object") return undefined;
  if (Array.isArray(value)) return value.map((item) => select(item, rule));
  if (!value || typeof value !== "object") return undefined;
  const out = {};
  for (const [key, inner] of Object.entries(rule)) {
    const picked = Array.isArray(inner) ? derive(value, inner) : select(value[key], inner);
    if (picked !== undefined) out[key] = picked;
  }
  return out;
}

/** Apply an answer's `carry` to the shim's markers: null (or undefined) drops one, anything else sets it. */
export function mergeCarry(carry, update) {
  if (!update || typeof update !== "object") return;
  for (const [key, value] of Object.entries(update)) {
    if (value === null || value === undefined) delete carry[key];
    else carry[key] = value;
  }
}

/** What a harness shows the model for one callTool answer; an error throws (the harness reports it). */
export function toolResult(name, answer) {
  if (!answer || typeof answer !== "object" || !("result" in answer)) {
    const message = answer && typeof answer.error === "string" ? answer.error : "no answer";
    throw new Error(message.startsWith(name) ? message : `${name}: ${message}`);
  }
  return { content: [{ type: "text", text: JSON.stringify(answer.result) }], details: answer.result };
}
