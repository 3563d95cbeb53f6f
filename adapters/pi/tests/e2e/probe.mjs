// Test-only pi extension: appends the name of each session and compaction event
// (and the session's leaf) to $PI_E2E_PROBE_LOG, so a test can count what pi fired.
import { appendFileSync } from "node:fs";

const EVENTS = ["session_start", "session_before_compact", "session_compact", "session_shutdown"];

export default function probe(pi) {
  const log = process.env.PI_E2E_PROBE_LOG;
  if (!log) return;
  for (const name of EVENTS) {
    pi.on(name, (event, ctx) => {
      const leaf = ctx.sessionManager.getLeafId();
      appendFileSync(log, `${JSON.stringify({ event: name, leaf, reason: event.reason })}\n`);
    });
  }
}
