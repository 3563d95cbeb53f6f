// SIGNET_SDK_MANAGED_OPENCLAW_PLUGIN: written by `signet-sdk install openclaw`; `signet-sdk uninstall openclaw` removes it.
//
// The OpenClaw plugin of signet-sdk. It holds no Signet logic: every decision is
// made by the OpenClaw adapter's translator (Python) behind the adapter server.
// This file only
//   * subscribes to the hooks listed in signet-openclaw.json (beside this file,
//     written by the installer from the translator's own table) and forwards each
//     as the event and context fields that table selects, plus the markers earlier
//     answers asked it to carry for the session, the values the table asked it to
//     keep, and the last line of a session file the table asked it to read, one
//     hook at a time per session, through the shared transport;
//   * applies what comes back: the value the handler returns (prependContext),
//     carried markers, and the end of a session's state;
//   * in a gateway (the table's shutdown.start hook fired), ends every session
//     it still holds when the gateway stops (shutdown.stop, inside OpenClaw's
//     drain budget), and at the process's exit sends what that did not finish
//     through the hook process, whose writes land in the durable outbox first.
//     A session ends once: one OpenClaw ended itself is not ended again;
//   * keeps the carried markers the table names in `persist` on disk, one small
//     file per session under signet-sdk's state directory, so that the next
//     process of a session starts with them (a compaction still waiting for its
//     summary when a gateway stops);
//   * registers the memory tools listed in signet-openclaw.json (declared in the
//     manifest's contracts.tools by the installer), each call going to the SDK's
//     tool set through the same transport (callTool) with the session of the
//     tool context; a failed call reaches the model as a tool error.
// It replaces no global, reads no credentials and never throws into OpenClaw.
// SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 turns it off entirely.
//
// OpenClaw 2026.9.6 loads a plugin once per registration mode, each time from a
// fresh copy of its folder, and dispatches hooks from two of those registries
// (session hooks from "full", turn and compaction hooks from "discovery"). The
// plugin therefore subscribes in both modes (never in setup, CLI-metadata or
// tool-discovery loads) and keeps its per-session state in one object under a
// registered symbol, which every copy in the process finds.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  callTool,
  hooksOff,
  loadSpec,
  matches,
  mergeCarry,
  select,
  send,
  sendSync,
  stateDir,
  toolResult,
} from "./transport.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const STATE = Symbol.for("signet-sdk.openclaw.sessions");
const PROCESS = Symbol.for("signet-sdk.openclaw.process");
const MODES = new Set(["full", "discovery"]);
// Tools are a capability: OpenClaw also loads plugins just to list or run them.
const TOOL_MODES = new Set(["full", "discovery", "tool-discovery"]);
const TAIL_BYTES = 4 * 1024 * 1024;

// Still the plugin's own exports, for callers that test what it forwards.
export { select, toolResult };

/**
 * The last JSON line matching `match` in the last 4 MiB of the file at `path`
 * (absolute; anything else, such as a "sqlite:" locator, is no file), selected
 * with `pick`; undefined when there is none.
 */
export async function lastLine(path, match, pick) {
  if (typeof path !== "string" || !isAbsolute(path)) return undefined;
  let handle;
  try {
    handle = await open(path, "r");
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString("utf8").split("\n");
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      let row;
      try {
        row = JSON.parse(lines[i]);
      } catch (error) {
        continue; // blank, or cut by the 4 MiB window
      }
      if (matches(row, match)) return select(row, pick);
    }
    return undefined;
  } catch (error) {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** The session scope of one hook: the first of the table's paths ("ctx.x", "event.x") set. */
export function scopeOf(paths, event, ctx) {
  for (const path of paths || []) {
    const [where, key] = path.split(".");
    const source = where === "ctx" ? ctx : event;
    const value = source && typeof source === "object" ? source[key] : undefined;
    if (typeof value === "string" && value) return value;
  }
  return null;
}

/** Per-session state shared by every copy of this plugin in the process. */
export function sessions(holder = globalThis) {
  if (!holder[STATE]) {
    Object.defineProperty(holder, STATE, { value: new Map(), enumerable: false });
  }
  return holder[STATE];
}

/**
 * What the process knows about itself, shared by every copy of this plugin:
 * whether it is a gateway, the stop under way, and the sessions ended (a later
 * end of one of them is not sent again until the session is used again).
 */
export function processState(holder = globalThis) {
  if (!holder[PROCESS]) {
    const value = { gateway: false, stopping: null, exitHooked: false, ended: new Set() };
    Object.defineProperty(holder, PROCESS, { value, enumerable: false });
  }
  return holder[PROCESS];
}

/**
 * The carried markers of one session kept across processes (`persist`): a JSON
 * file named by a hash of the scope. load() gives them (or {}), save() writes
 * them, or removes the file when none is set. Failures are ignored: memory is
 * best effort, OpenClaw never waits on it.
 */
export function carryStore(env, harness, keys) {
  const names = Array.isArray(keys) ? keys : [];
  const dir = join(stateDir(env), "plugin-carry", harness);
  const file = (scope) => join(dir, `${createHash("sha256").update(scope).digest("hex").slice(0, 32)}.json`);
  return {
    load(scope) {
      if (!names.length || scope === null) return {};
      try {
        const kept = JSON.parse(readFileSync(file(scope), "utf8"));
        if (!kept || kept.scope !== scope || typeof kept.carry !== "object") return {};
        return Object.fromEntries(names.filter((k) => k in kept.carry).map((k) => [k, kept.carry[k]]));
      } catch (error) {
        return {};
      }
    },
    save(scope, carry) {
      if (!names.length || scope === null) return;
      const kept = Object.fromEntries(names.filter((k) => carry[k] !== undefined).map((k) => [k, carry[k]]));
      try {
        if (!Object.keys(kept).length) {
          unlinkSync(file(scope));
          return;
        }
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const temp = `${file(scope)}.${process.pid}.tmp`;
        writeFileSync(temp, JSON.stringify({ scope, carry: kept }), { mode: 0o600 });
        renameSync(temp, file(scope));
      } catch (error) {
        // nothing kept (or nothing to remove)
      }
    },
  };
}

function newEntry() {
  return { carry: {}, held: {}, ctx: {}, ident: {}, pendingEnd: null, queue: Promise.resolve() };
}

function entryFor(table, scope, store = null) {
  if (scope === null) return newEntry();
  let entry = table.get(scope);
  if (!entry) {
    entry = newEntry();
    if (store) entry.carry = store.load(scope); // what an earlier process left for it
    table.set(scope, entry);
  }
  return entry;
}

/** Apply one answer's data to a session's entry; returns what the handler returns. */
export function apply(table, scope, entry, data, proc = null, store = null) {
  if (!data || typeof data !== "object") return undefined;
  if (data.carry && typeof data.carry === "object") {
    mergeCarry(entry.carry, data.carry);
    store?.save(scope, entry.carry);
  }
  if (data.end === true && scope !== null) {
    if (table.get(scope) === entry) table.delete(scope);
    proc?.ended.add(scope);
    entry.pendingEnd = null;
  }
  return data.result === null ? undefined : data.result;
}

/** A promise of `promise`'s value, or of undefined once `ms` have passed. */
function within(promise, ms) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function heldFor(rule, entry) {
  const held = {};
  for (const name of rule.attach || []) {
    if (entry.held[name] !== undefined) held[name] = entry.held[name];
  }
  return held;
}

/** The end of one session the plugin still holds, as the table's shutdown event. */
function shutdownPayload(shutdown, rule, entry) {
  const payload = { ...(shutdown.fields || {}) };
  if (entry.ident.sessionKey) payload.sessionKey = entry.ident.sessionKey;
  if (entry.ident.sessionId) payload.sessionId = entry.ident.sessionId;
  payload.ctx = { ...entry.ctx };
  payload.carry = { ...entry.carry };
  if (rule.attach) payload.held = heldFor(rule, entry);
  return payload;
}

/**
 * End every session still held (once each, after whatever it has queued): the
 * gateway is stopping. Resolves within shutdown.timeoutMs; an end not answered by
 * then stays pending for the process's exit.
 */
function stopAll(api, spec, ctx) {
  const { shutdown, table, proc, transport, env, harness } = ctx;
  if (proc.stopping) return proc.stopping;
  const rule = spec.events[shutdown.event] || {};
  const ends = [];
  for (const [scope, entry] of table) {
    const run = entry.queue.then(async () => {
      if (table.get(scope) !== entry || proc.ended.has(scope)) return; // ended meanwhile
      const payload = shutdownPayload(shutdown, rule, entry);
      entry.pendingEnd = payload;
      const options = { timeoutMs: shutdown.timeoutMs, env };
      apply(table, scope, entry, await transport(harness, shutdown.event, payload, options), proc);
    });
    entry.queue = run.catch(() => null);
    ends.push(entry.queue);
  }
  proc.stopping = within(Promise.all(ends), shutdown.timeoutMs || 1500);
  return proc.stopping;
}

/** At the process's exit (nothing asynchronous runs any more): the ends not yet answered. */
function endAtExit(spec, ctx) {
  const { shutdown, table, proc, env, harness, sendNow } = ctx;
  if (!proc.gateway) return;
  const rule = spec.events[shutdown.event] || {};
  for (const [scope, entry] of table) {
    if (proc.ended.has(scope)) continue;
    const payload = entry.pendingEnd || shutdownPayload(shutdown, rule, entry);
    proc.ended.add(scope);
    try {
      sendNow(harness, shutdown.event, payload, { timeoutMs: shutdown.exitTimeoutMs, env });
    } catch (error) {
      // the exit goes on
    }
  }
}

function subscribeShutdown(api, spec, ctx) {
  const { shutdown, proc } = ctx;
  if (!shutdown || !shutdown.start || !shutdown.stop || !shutdown.event) return;
  api.on(shutdown.start, () => {
    try {
      proc.gateway = true;
      proc.stopping = null; // a gateway started again in this process stops again
      if (!proc.exitHooked && ctx.hookExit) {
        proc.exitHooked = true;
        ctx.hookExit(() => endAtExit(spec, ctx));
      }
    } catch (error) {
      // never break OpenClaw
    }
  });
  api.on(shutdown.stop, async () => {
    try {
      proc.gateway = true;
      await stopAll(api, spec, ctx);
    } catch (error) {
      // never break OpenClaw's shutdown
    }
  });
}

/**
 * Subscribe every hook of the table on `api`; `options` replace the transport
 * (send, sendSync), the session table, the process state, the exit hook and
 * env in tests.
 */
export function subscribe(api, spec, options = {}) {
  const env = options.env || process.env;
  const transport = options.send || send;
  const table = options.sessions || sessions();
  const proc = options.process || processState();
  const harness = spec.harness || "openclaw";
  const shutdown = spec.shutdown || null;
  const hookExit = options.onExit || ((fn) => process.on("exit", fn));
  const sendNow = options.sendSync || sendSync;
  const store = carryStore(env, harness, spec.persist);
  subscribeShutdown(api, spec, { shutdown, table, proc, transport, env, harness, hookExit, sendNow });
  for (const [hook, rule] of Object.entries(spec.events)) {
    const isEnd = shutdown !== null && hook === shutdown.event;
    api.on(hook, async (event, ctx) => {
      try {
        const scope = scopeOf(spec.scope, event, ctx);
        if (!isEnd && scope !== null) proc.ended.delete(scope); // the session is in use again
        const entry = entryFor(table, scope, store);
        for (const [name, field] of Object.entries(rule.keep || {})) {
          if (event && event[field] !== undefined) entry.held[name] = event[field];
        }
        // One hook at a time per session, so each carries what the answers before it asked to.
        const run = entry.queue.then(async () => {
          if (isEnd && scope !== null && proc.ended.has(scope)) return undefined; // ended once
          const payload = select(event, rule.fields || {}) || {};
          payload.ctx = select(ctx, rule.ctx || {}) || {};
          payload.carry = { ...entry.carry };
          entry.ctx = { ...entry.ctx, ...payload.ctx };
          for (const key of ["sessionKey", "sessionId"]) {
            const value = (ctx && ctx[key]) || (event && event[key]);
            if (typeof value === "string" && value) entry.ident[key] = value;
          }
          for (const [name, [field, match, pick]] of Object.entries(rule.read || {})) {
            const found = await lastLine(event && event[field], match, pick);
            if (found !== undefined) payload[name] = found;
          }
          if (rule.attach) payload.held = heldFor(rule, entry);
          const data = await transport(harness, hook, payload, { timeoutMs: rule.timeoutMs, env });
          return apply(table, scope, entry, data, proc, store);
        });
        entry.queue = run.catch(() => null);
        const result = await run;
        return rule.result ? result : undefined;
      } catch (error) {
        return undefined;
      }
    });
  }
}

/** Register the table's memory tools on `api`, each made per tool context (its session). */
export function registerTools(api, spec, options = {}) {
  if (!Array.isArray(spec.tools) || typeof api.registerTool !== "function") return;
  const env = options.env || process.env;
  const call = options.callTool || callTool;
  const harness = spec.harness || "openclaw";
  for (const tool of spec.tools) {
    if (!tool || typeof tool.name !== "string") continue;
    const make = (toolContext) => ({
      name: tool.name,
      description: tool.description || tool.name,
      parameters: tool.parameters || { type: "object", properties: {} },
      async execute(toolCallId, params) {
        const ctx = toolContext || {};
        const context = {
          sessionKey: ctx.sessionKey || ctx.sessionId || null,
          project: ctx.workspaceDir || null,
          agentId: ctx.agentId || env.SIGNET_AGENT_ID || null,
        };
        // `tool` is the tool set's own name; `name` is what OpenClaw shows (prefixed).
        const answer = await call(harness, tool.tool || tool.name, params || {}, context, {
          timeoutMs: tool.timeoutMs,
          env,
        });
        return toolResult(tool.tool || tool.name, answer);
      },
    });
    try {
      api.registerTool(make, { name: tool.name });
    } catch (error) {
      // an OpenClaw that refuses one tool keeps the others and every hook
    }
  }
}

export default {
  id: "signet-sdk",
  name: "Signet memory (signet-sdk)",
  description: "Forwards OpenClaw's session, prompt and compaction hooks to the Signet daemon.",
  register(api) {
    try {
      const env = process.env;
      if (hooksOff(env)) return;
      if (!api) return;
      const spec = loadSpec(HERE, "signet-openclaw.json");
      if (!spec) return;
      if (TOOL_MODES.has(api.registrationMode)) registerTools(api, spec);
      if (MODES.has(api.registrationMode) && typeof api.on === "function") subscribe(api, spec);
    } catch (error) {
      // never break OpenClaw's plugin loading
    }
  },
};
