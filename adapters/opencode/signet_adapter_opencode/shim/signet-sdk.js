// SIGNET_SDK_MANAGED_OPENCODE_PLUGIN: written by `signet-sdk install opencode`; `signet-sdk uninstall opencode` removes it.
//
// The OpenCode plugin of signet-sdk. It holds no Signet logic: every decision
// is made by the OpenCode adapter's translator (Python) behind the adapter
// server. This file only
//   * forwards the hooks and bus events listed in signet-sdk/signet-opencode.json
//     (written by the installer from the translator's own table), each as the
//     fields that table selects, plus the plugin's directory, the markers
//     earlier answers asked it to carry and, where the table says so, the
//     session's messages from OpenCode's own client; one event at a time per
//     lane the table names, through the shared transport (signet-sdk/transport.mjs);
//   * applies what comes back: system text held for the next model requests
//     of a session (pushed in experimental.chat.system.transform), strings
//     pushed onto a hook's output, carried markers, and events held until
//     OpenCode exits (sent synchronously from the process "exit" handler) or
//     released early.
// It exports one plugin function and nothing else (OpenCode calls every export),
// never writes to stdout, and never throws into OpenCode.
// SIGNET_BYPASS=1 or SIGNET_NO_HOOKS=1 turns it off entirely.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { hooksOff, loadSpec, mergeCarry, select, send, sendSync } from "./signet-sdk/transport.mjs";

const HERE = join(dirname(fileURLToPath(import.meta.url)), "signet-sdk");

function sessionOf(properties) {
  if (!properties || typeof properties !== "object") return null;
  if (typeof properties.sessionID === "string") return properties.sessionID;
  return properties.info && typeof properties.info.id === "string" ? properties.info.id : null;
}

// The session's messages, or undefined when OpenCode could not give them (its
// client answers a failed call with {error}): then the event goes without them,
// never as an empty session.
async function messagesOf(client, sessionID) {
  try {
    const answer = await client.session.messages({ path: { id: sessionID } });
    if (Array.isArray(answer)) return answer;
    return answer && Array.isArray(answer.data) ? answer.data : undefined;
  } catch (error) {
    return undefined;
  }
}

function createState() {
  return { system: new Map(), carry: {}, held: new Map() };
}

function modelKey(model) {
  if (!model || typeof model !== "object") return null;
  const provider = model.providerID;
  const name = model.id || model.modelID;
  return provider && name ? `${provider}/${name}` : null;
}

export const SignetMemory = async (ctx) => {
  const options = (ctx && ctx.signetOptions) || {};
  const env = options.env || process.env;
  if (hooksOff(env)) return {};
  const spec = options.spec || loadSpec(HERE, "signet-opencode.json");
  if (!spec) return {};
  const transport = options.send || send;
  const transportSync = options.sendSync || sendSync;
  const harness = spec.harness || "opencode";
  const directory = ctx.directory || ctx.worktree || null;
  const state = createState();
  // One queue per lane the event table names: within a lane one event at a
  // time, so each carries what the answers before it asked to carry; a
  // prompt never waits behind the previous turn's writes.
  const lanes = new Map();

  function base(extra) {
    return { ...extra, directory, carry: { ...state.carry } };
  }

  // `payload` may be a promise (messages being fetched): the event keeps its
  // place in the lane from the moment the hook fired.
  function forward(event, payload, timeoutMs) {
    const lane = (spec.events[event] && spec.events[event].lane) || "main";
    const queue = lanes.get(lane) || Promise.resolve();
    const run = queue.then(async () =>
      transport(harness, event, base(await payload), { timeoutMs, env }),
    );
    lanes.set(lane, run.catch(() => null));
    return run;
  }

  function release(key, reason) {
    const held = state.held.get(key);
    if (!held) return;
    state.held.delete(key);
    const rule = spec.events[held.event] || {};
    forward(held.event, { ...held.payload, reason }, rule.timeoutMs).catch(() => null);
  }

  function apply(data, output) {
    if (!data || typeof data !== "object") return;
    mergeCarry(state.carry, data.carry);
    if (data.system && typeof data.system === "object") {
      for (const [name, slot] of Object.entries(data.system)) {
        if (slot && typeof slot.text === "string" && slot.text) state.system.set(name, { ...slot });
        else state.system.delete(name);
      }
    }
    if (data.hold && typeof data.hold === "object") {
      for (const [key, held] of Object.entries(data.hold)) {
        if (held && typeof held.event === "string") state.held.set(key, held);
        else state.held.delete(key);
      }
    }
    if (data.push && typeof data.push === "object" && output && typeof output === "object") {
      for (const [field, items] of Object.entries(data.push)) {
        if (Array.isArray(output[field]) && Array.isArray(items)) output[field].push(...items);
      }
    }
    if (data.release && typeof data.release === "object") {
      for (const [key, reason] of Object.entries(data.release)) release(key, String(reason));
    }
  }

  /** Drop the slots that last until `event` fires for `sessionID`. */
  function reach(event, sessionID) {
    for (const [name, slot] of state.system) {
      if (slot.until === event && slot.session === sessionID) state.system.delete(name);
    }
  }

  async function handle(event, fields, sessionID, output) {
    const rule = spec.events[event];
    if (!rule) return;
    try {
      reach(event, sessionID);
      const payload = { type: event, ...(select(fields, rule.fields || {}) || {}) };
      const ready = !(rule.messages && sessionID)
        ? payload
        : messagesOf(ctx.client, sessionID).then((list) =>
            list === undefined ? payload : { ...payload, messages: select(list, rule.messages) },
          );
      apply(await forward(event, ready, rule.timeoutMs), output);
    } catch (error) {
      // OpenCode carries on as if no plugin were loaded
    }
  }

  process.on("exit", () => {
    // Nothing asynchronous runs any more: each held event goes out through a
    // short synchronous process that puts it in the durable outbox.
    for (const [key, held] of [...state.held]) {
      state.held.delete(key);
      try {
        const rule = spec.events[held.event] || {};
        transportSync(harness, held.event, base({ ...held.payload, reason: "exit" }), {
          timeoutMs: rule.timeoutMs,
          env,
        });
      } catch (error) {
        // exiting anyway
      }
    }
  });

  const hooks = {
    event: async (input) => {
      const event = input && input.event;
      if (!event || typeof event.type !== "string" || !spec.events[event.type]) return;
      const properties = event.properties || {};
      const sessionID = sessionOf(properties);
      await handle(event.type, { ...properties, sessionID }, sessionID, null);
    },
    "chat.message": async (input, output) => {
      const given = input || {};
      const message = (output && output.message) || {};
      const fields = {
        sessionID: given.sessionID,
        messageID: given.messageID || message.id,
        agent: given.agent || message.agent,
        model: given.model || message.model,
        parts: (output && output.parts) || [],
      };
      await handle("chat.message", fields, given.sessionID, output);
    },
    "experimental.session.compacting": async (input, output) => {
      const given = input || {};
      await handle("experimental.session.compacting", given, given.sessionID, output);
    },
    "experimental.chat.system.transform": async (input, output) => {
      try {
        if (!input || !output || !Array.isArray(output.system) || state.system.size === 0) return;
        const model = modelKey(input.model);
        for (const [name, slot] of state.system) {
          if (slot.session !== input.sessionID) continue;
          if (slot.model && slot.model !== model) continue;
          output.system.push(slot.text);
          if (typeof slot.uses === "number") {
            slot.uses -= 1;
            if (slot.uses <= 0) state.system.delete(name);
          }
        }
      } catch (error) {
        // the request goes out without our text
      }
    },
  };
  return hooks;
};
