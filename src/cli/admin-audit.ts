/**
 * `toolgate admin audit tail|call|export|verify` (an auditor credential in `TOOLGATE_AUDITOR_TOKEN`;
 * `call`: the admin secret): the latest entries, one tool call's records (why it failed), the
 * export streamed to a file with progress lines, and the offline verification of an export
 * against the gate's published verifier keys (`toolgate audit verify`).
 * @module
 */
import type { Json } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminContext, AdminGroup } from "./admin";
import { verifyExport } from "./audit-verify";
import { gateExit, intOf, jsonLine, objectOf, reasonOf, textOf, textsOf, usageExit, type Step } from "./admin-http";
import { clip, compact, table, when } from "./admin-table";
import type { OutputFile } from "./io";

const COUNT = /^[1-9][0-9]{0,8}$/;

/** Entries `tail` shows when `--n` is not given. */
export const TAIL_DEFAULT = 20;

/** Entries between two progress lines of `export` when `--progress-every` is not given. */
export const PROGRESS_DEFAULT = 10_000;

/** One page of the chain after `after`: its entries and where the next page starts (null at the end). */
async function pageAfter(
  ctx: AdminContext,
  after: number,
  limit?: number,
): Promise<Step<{ entries: Json[]; next: number | null }>> {
  const answer = await ctx.client.json(ctx.at(`/audit?after=${after}${limit === undefined ? "" : `&limit=${limit}`}`), {
    role: "auditor",
  });
  if (!answer.ok) return answer;
  const page = objectOf(answer.value.value);
  const entries = page?.entries;
  if (!Array.isArray(entries)) return err(gateExit("the gate answered an audit page without entries"));
  return ok({ entries, next: intOf(page, "next_after") });
}

/**
 * The log's size (its newest seq) in O(log size) one-entry pages: doubling until no entry
 * follows, then halving the gap, so `tail` never reads the whole chain.
 */
async function logSize(ctx: AdminContext): Promise<Step<number>> {
  const hasAfter = async (seq: number): Promise<Step<boolean>> => {
    const page = await pageAfter(ctx, seq, 1);
    return page.ok ? ok(page.value.entries.length > 0) : page;
  };
  let lo = 0;
  let hi = 1;
  const first = await hasAfter(0);
  if (!first.ok) return first;
  if (!first.value) return ok(0);
  for (;;) {
    const more = await hasAfter(hi);
    if (!more.ok) return more;
    if (!more.value) break;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const more = await hasAfter(mid);
    if (!more.ok) return more;
    if (more.value) lo = mid;
    else hi = mid;
  }
  return ok(hi);
}

const CHECKPOINT_PREFIX = new TextEncoder().encode('{"checkpoint":');

/** Streams the export into the file; answers the entries and bytes written. */
async function streamExport(
  ctx: AdminContext,
  file: string,
  every: number,
): Promise<Step<{ entries: number; bytes: number }>> {
  const response = await ctx.client.send(ctx.at("/audit/export"), { role: "auditor" });
  if (!response.ok) return response;
  const announced = Number(response.value.headers.get("toolgate-audit-entries") ?? "NaN");
  if (ctx.io.openOutput === undefined) return err(usageExit("this environment cannot write files"));
  let out: OutputFile;
  try {
    out = ctx.io.openOutput(file);
  } catch (caught) {
    await response.value.body?.cancel();
    return err(usageExit(`cannot write ${file} (${reasonOf(caught)})`));
  }
  let lines = 0;
  let bytes = 0;
  // The first bytes of the line being read, and whether the last complete line was the checkpoint line.
  let head: number[] = [];
  let lastWasCheckpoint = false;
  const reader = (response.value.body as ReadableStream<Uint8Array> | null)?.getReader();
  try {
    for (;;) {
      const chunk = reader === undefined ? { done: true as const, value: undefined } : await reader.read();
      if (chunk.done) break;
      out.write(chunk.value);
      for (const [i, byte] of chunk.value.entries()) {
        if (byte !== 0x0a) {
          if (head.length < CHECKPOINT_PREFIX.length) head.push(byte);
          continue;
        }
        lastWasCheckpoint =
          head.length === CHECKPOINT_PREFIX.length && head.every((b, j) => b === CHECKPOINT_PREFIX[j]);
        head = [];
        lines++;
        // Bytes through the end of this line: the same figures whatever the chunks were.
        if (lines % every === 0 && !lastWasCheckpoint)
          ctx.io.stderr(`toolgate admin audit export: ${lines} entries, ${bytes + i + 1} bytes\n`);
      }
      bytes += chunk.value.length;
    }
  } catch (caught) {
    return err(gateExit(`the export ended after ${lines} lines (${reasonOf(caught)}): ${file} is incomplete`));
  } finally {
    out.close();
  }
  const entries = lines - 1;
  if (!lastWasCheckpoint || head.length > 0)
    return err(gateExit(`the export ended without its checkpoint line after ${lines} lines: ${file} is incomplete`));
  if (entries !== announced)
    return err(gateExit(`the export holds ${entries} entries, the gate announced ${announced}: ${file} is incomplete`));
  return ok({ entries, bytes });
}

/** The verbs of `toolgate admin audit`. */
export const auditVerbs: AdminGroup = {
  tail: {
    usage: "tail [--n N]",
    role: "auditor",
    consumer: true,
    positionals: 0,
    values: ["n"],
    async run(ctx) {
      const nText = ctx.option("n");
      if (nText !== undefined && !COUNT.test(nText)) return err(usageExit(`--n is a positive number: ${nText}`));
      const n = nText === undefined ? TAIL_DEFAULT : Number(nText);
      const size = await logSize(ctx);
      if (!size.ok) return size;
      const entries: Json[] = [];
      let after: number | null = Math.max(0, size.value - n);
      while (after !== null) {
        const page = await pageAfter(ctx, after);
        if (!page.ok) return page;
        entries.push(...page.value.entries);
        after = page.value.next;
      }
      // Entries appended while reading are newer still: the last n are the tail.
      const tail = entries.slice(-n);
      if (ctx.json) return ok(jsonLine(tail));
      const rows = tail.map((item) => {
        const e = objectOf(item);
        return [String(intOf(e, "seq") ?? "?"), when(intOf(e, "at"), "-"), textOf(e, "kind"), clip(compact(e?.record))];
      });
      return ok(table(["SEQ", "AT", "KIND", "RECORD"], rows));
    },
  },
  call: {
    usage: "call CALL_ID",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const callId = ctx.args[0] ?? "";
      const answer = await ctx.client.json(ctx.at(`/audit/calls/${encodeURIComponent(callId)}`), { role: "admin" });
      if (!answer.ok) return answer;
      const entries = objectOf(answer.value.value)?.entries;
      if (!Array.isArray(entries)) return err(gateExit("the gate answered a call's records without entries"));
      if (ctx.json) return ok(jsonLine(entries));
      const rows = entries.map((item) => {
        const e = objectOf(item);
        const record = objectOf(e?.record);
        const cause = record?.cause;
        return [
          String(intOf(e, "seq") ?? "?"),
          when(intOf(e, "at"), "-"),
          textOf(e, "kind"),
          textOf(record, "outcome"),
          textOf(record, "error_code") || "-",
          cause === undefined ? "-" : clip(compact(cause)),
        ];
      });
      return ok(table(["SEQ", "AT", "KIND", "OUTCOME", "CODE", "CAUSE"], rows));
    },
  },
  export: {
    usage: "export --out FILE [--progress-every N]",
    role: "auditor",
    consumer: true,
    positionals: 0,
    values: ["out", "progress-every"],
    async run(ctx) {
      const file = ctx.option("out");
      if (file === undefined) return err(usageExit("--out FILE is required"));
      const everyText = ctx.option("progress-every");
      if (everyText !== undefined && !COUNT.test(everyText))
        return err(usageExit(`--progress-every is a positive number: ${everyText}`));
      const done = await streamExport(ctx, file, everyText === undefined ? PROGRESS_DEFAULT : Number(everyText));
      if (!done.ok) return done;
      const { entries, bytes } = done.value;
      if (ctx.json) return ok(jsonLine({ file, entries, bytes }));
      return ok(`exported ${entries} entries and their signed checkpoint to ${file} (${bytes} bytes)\n`);
    },
  },
  verify: {
    usage: "verify --export FILE [--checkpoint SAVED_FILE]...",
    role: null,
    consumer: false,
    positionals: 0,
    values: ["export"],
    repeated: ["checkpoint"],
    async run(ctx) {
      const exportFile = ctx.option("export");
      if (exportFile === undefined) return err(usageExit("--export FILE is required"));
      const answer = await ctx.client.json("/v1/audit/verifier-keys", { role: null });
      if (!answer.ok) return answer;
      const keys = textsOf(objectOf(answer.value.value), "keys");
      if (keys.length === 0) return err(gateExit("the gate publishes no verifier key"));
      return ok(verifyExport({ exportFile, keys, checkpoints: [...ctx.options("checkpoint")] }, ctx.io));
    },
  },
};
