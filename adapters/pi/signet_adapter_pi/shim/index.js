// SIGNET_SDK_MANAGED_PI_EXTENSION: written by `signet-sdk install pi`; `signet-sdk uninstall pi` removes it.
//
// The pi extension of signet-sdk. It holds no Signet logic: every decision is
// made by the pi adapter's translator (Python) behind the adapter server. This
// file only
//   * forwards the events listed in signet-pi.json (beside this file, written by
//     the installer from the translator's own table), each as the fields that
//     table selects plus a description of the session and the markers earlier
//     answers asked it to carry, one event at a time, through the shared
//     transport (transport.mjs);
//   * applies what comes back: context slots (hidden messages added to every
//     model request in pi's `context` event, never stored in the session),
//     carried markers, and a value for pi's handler to return;
//   * registers the memory tools listed in signet-pi.json with pi, each call
//     going to the SDK's tool set through the same transport (callTool) with
//     the session as context; a failed call reaches the model as a tool error.
// It never writes to stdout (pi's RPC mode speaks JSON there) and never throws
// into pi. SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 turns it off entirely.

import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool, hooksOff, loadSpec, mergeCarry, select, send, toolResult } from "./transport.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

// Still the extension's own exports, for callers that test what it forwards.
export { select, toolResult };

/** What the extension context says about the session ("meta", or "transcript" with entries). */
export function describeSession(ctx, kind) {
  const manager = ctx.sessionManager;
  const file = manager.getSessionFile() || null;
  const onDisk = Boolean(file) && existsSync(file);
  const session = {
    id: manager.getSessionId(),
    file,
    cwd: ctx.cwd,
    leafId: manager.getLeafId() || null,
    persisted: typeof manager.isPersisted === "function" ? manager.isPersisted() : true,
    onDisk,
  };
  if (kind === "transcript") {
    session.header = manager.getHeader() || null;
    // The file is the transcript; only a session pi has not written sends its entries.
    if (!onDisk) session.entries = manager.getEntries();
  }
  return session;
}

/** Where the held messages go in one model request: "start" first, "prompt" after the last user message. */
export function withSlots(messages, slots) {
  const start = [];
  const prompt = [];
  for (const slot of slots.values()) {
    const copies = slot.messages.map((message) => ({ ...message }));
    (slot.at === "prompt" ? prompt : start).push(...copies);
  }
  const out = [...start, ...messages];
  if (prompt.length > 0) {
    let at = out.length;
    for (let i = out.length - 1; i >= start.length; i -= 1) {
      if (out[i] && out[i].role === "user") {
        at = i + 1;
        break;
      }
    }
    out.splice(at, 0, ...prompt);
  }
  return out;
}

/** The extension state: held context slots and carried markers, and how answers change them. */
export function createState() {
  const slots = new Map();
  const carry = {};
  return {
    slots,
    carry,
    /** Drop the slots that last until `event`. */
    reach(event) {
      for (const [name, slot] of slots) if (slot.until === event) slots.delete(name);
    },
    /** Apply one answer's data; returns what pi's handler should return. */
    apply(data) {
      if (!data || typeof data !== "object") return undefined;
      mergeCarry(carry, data.carry);
      if (data.context && typeof data.context === "object") {
        for (const [name, slot] of Object.entries(data.context)) {
          const messages = slot && Array.isArray(slot.messages) ? slot.messages : [];
          if (messages.length === 0) slots.delete(name);
          else slots.set(name, { at: slot.at, until: slot.until, messages });
        }
      }
      return data.result === null ? undefined : data.result;
    },
  };
}

function registerTools(pi, spec, harness, env, call) {
  if (!Array.isArray(spec.tools) || typeof pi.registerTool !== "function") return;
  for (const tool of spec.tools) {
    if (!tool || typeof tool.name !== "string") continue;
    try {
      pi.registerTool({
        name: tool.name,
        label: tool.label || tool.name,
        description: tool.description || tool.name,
        parameters: tool.parameters || { type: "object", properties: {} },
        async execute(toolCallId, params, signal, onUpdate, ctx) {
          const context = {
            sessionKey: ctx && ctx.sessionManager ? ctx.sessionManager.getSessionId() : null,
            project: ctx ? ctx.cwd : null,
            agentId: env.SIGNET_AGENT_ID || null,
          };
          const answer = await call(harness, tool.name, params, context, {
            timeoutMs: tool.timeoutMs,
            env,
          });
          return toolResult(tool.name, answer);
        },
      });
    } catch (error) {
      // a pi that refuses one tool keeps the others and every hook
    }
  }
}

export default function signetExtension(pi, options = {}) {
  const env = options.env || process.env;
  if (hooksOff(env)) return;
  const spec = options.spec || loadSpec(HERE, "signet-pi.json");
  if (!spec) return;
  const transport = options.send || send;
  const harness = spec.harness || "pi";
  const state = createState();
  let queue = Promise.resolve();
  registerTools(pi, spec, harness, env, options.callTool || callTool);

  // One event at a time, so each one carries what the answers before it asked to carry.
  function forward(event, payload, timeoutMs) {
    const run = queue.then(() =>
      transport(harness, event, { ...payload, carry: { ...state.carry } }, { timeoutMs, env }),
    );
    queue = run.catch(() => null);
    return run;
  }

  for (const [event, rule] of Object.entries(spec.events)) {
    pi.on(event, async (native, ctx) => {
      try {
        state.reach(event);
        const payload = select(native, rule.fields || {}) || {};
        payload.session = describeSession(ctx, rule.session);
        const data = await forward(event, payload, rule.timeoutMs);
        return state.apply(data);
      } catch (error) {
        return undefined;
      }
    });
  }

  pi.on("context", (native) => {
    try {
      if (state.slots.size === 0 || !Array.isArray(native.messages)) return undefined;
      return { messages: withSlots(native.messages, state.slots) };
    } catch (error) {
      return undefined;
    }
  });
}
