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

import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool, send } from "./transport.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const STATE = Symbol.for("signet-sdk.openclaw.sessions");
const MODES = new Set(["full", "discovery"]);
// Tools are a capability: OpenClaw also loads plugins just to list or run them.
const TOOL_MODES = new Set(["full", "discovery", "tool-discovery"]);
const TAIL_BYTES = 4 * 1024 * 1024;

function loadSpec() {
  try {
    const spec = JSON.parse(readFileSync(join(HERE, "signet-openclaw.json"), "utf8"));
    return spec && typeof spec.events === "object" ? spec : null;
  } catch (error) {
    return null;
  }
}

function matches(item, match) {
  if (!item || typeof item !== "object") return false;
  return Object.entries(match).every(([key, value]) => item[key] === value);
}

/**
 * The parts of `value` that `spec` selects: true = as is, "count" = array length,
 * {} = those fields; inside an object, ["count", f], ["find", f, match, pick] and
 * ["findLast", f, match, pick] derive a field from the array field f.
 */
export function select(value, spec) {
  if (spec === true) return value;
  if (spec === "count") return Array.isArray(value) ? value.length : undefined;
  if (!spec || typeof spec !== "object" || !value || typeof value !== "object") return undefined;
  const out = {};
  for (const [key, inner] of Object.entries(spec)) {
    let picked;
    if (Array.isArray(inner)) {
      const [op, field, match, pick] = inner;
      const list = Array.isArray(value[field]) ? value[field] : undefined;
      if (op === "count") picked = list ? list.length : undefined;
      else if (list && op === "find") picked = select(list.find((m) => matches(m, match)), pick);
      else if (list && op === "findLast") {
        picked = select(list.findLast((m) => matches(m, match)), pick);
      }
    } else {
      picked = select(value[key], inner);
    }
    if (picked !== undefined) out[key] = picked;
  }
  return out;
}

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

function entryFor(table, scope) {
  if (scope === null) return { carry: {}, held: {}, queue: Promise.resolve() };
  let entry = table.get(scope);
  if (!entry) {
    entry = { carry: {}, held: {}, queue: Promise.resolve() };
    table.set(scope, entry);
  }
  return entry;
}

/** Apply one answer's data to a session's entry; returns what the handler returns. */
export function apply(table, scope, entry, data) {
  if (!data || typeof data !== "object") return undefined;
  if (data.carry && typeof data.carry === "object") {
    for (const [key, value] of Object.entries(data.carry)) {
      if (value === null || value === undefined) delete entry.carry[key];
      else entry.carry[key] = value;
    }
  }
  if (data.end === true && scope !== null && table.get(scope) === entry) table.delete(scope);
  return data.result === null ? undefined : data.result;
}

/** Subscribe every hook of the table on `api`; `options` replace the transport and env in tests. */
export function subscribe(api, spec, options = {}) {
  const env = options.env || process.env;
  const transport = options.send || send;
  const table = options.sessions || sessions();
  const harness = spec.harness || "openclaw";
  for (const [hook, rule] of Object.entries(spec.events)) {
    api.on(hook, async (event, ctx) => {
      try {
        const scope = scopeOf(spec.scope, event, ctx);
        const entry = entryFor(table, scope);
        for (const [name, field] of Object.entries(rule.keep || {})) {
          if (event && event[field] !== undefined) entry.held[name] = event[field];
        }
        // One hook at a time per session, so each carries what the answers before it asked to.
        const run = entry.queue.then(async () => {
          const payload = select(event, rule.fields || {}) || {};
          payload.ctx = select(ctx, rule.ctx || {}) || {};
          payload.carry = { ...entry.carry };
          for (const [name, [field, match, pick]] of Object.entries(rule.read || {})) {
            const found = await lastLine(event && event[field], match, pick);
            if (found !== undefined) payload[name] = found;
          }
          if (rule.attach) {
            payload.held = {};
            for (const name of rule.attach) {
              if (entry.held[name] !== undefined) payload.held[name] = entry.held[name];
            }
          }
          const data = await transport(harness, hook, payload, { timeoutMs: rule.timeoutMs, env });
          return apply(table, scope, entry, data);
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

/** What OpenClaw shows the model for one tool answer; an error throws (OpenClaw reports it). */
export function toolResult(name, answer) {
  if (!answer || typeof answer !== "object" || !("result" in answer)) {
    const message = answer && typeof answer.error === "string" ? answer.error : "no answer";
    throw new Error(message.startsWith(name) ? message : `${name}: ${message}`);
  }
  return { content: [{ type: "text", text: JSON.stringify(answer.result) }], details: answer.result };
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
      if (env.SIGNET_BYPASS === "1" || env.SIGNET_NO_HOOKS === "1") return;
      if (!api) return;
      const spec = loadSpec();
      if (!spec) return;
      if (TOOL_MODES.has(api.registrationMode)) registerTools(api, spec);
      if (MODES.has(api.registrationMode) && typeof api.on === "function") subscribe(api, spec);
    } catch (error) {
      // never break OpenClaw's plugin loading
    }
  },
};
