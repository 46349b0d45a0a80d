/**
 * The audit append's own work per tool call, in-process on the core (the same code the consumer
 * object runs): the chain digest, the entry's export line, its Merkle leaf hash and the complete
 * nodes it closes (RFC 9162). Prints one JSON line `{ entries, us_per_append }`;
 * tools/bench-http.ts prints it beside the gate read call measured in the same run. The
 * SQLite row writes are not in it (the gate read call's figure includes them).
 */
import { appendNodes, entryDigest, entryLine, leafHash, type NodeReader } from "../src/core/audit";

const ENTRIES = Number(process.argv[2] ?? "20000");
const encoder = new TextEncoder();
const nodes = new Map<string, Uint8Array>();
const reader: NodeReader = {
  node(level, index) {
    const hash = nodes.get(`${level}/${index}`);
    if (hash === undefined) throw new Error(`no node ${level}/${index}`);
    return hash;
  },
};
// A record of the size a read call's protected audit has (about 900 bytes of canonical JSON).
const record = JSON.stringify({ schema_version: "tool-audit-v2", visibility: "protected_audit", pad: "x".repeat(820) });

function run(count: number, offset: number): void {
  let prev = "0".repeat(64);
  for (let i = 0; i < count; i++) {
    const seq = offset + i + 1;
    const at = 1_800_000_000 + seq;
    const sha = entryDigest(seq, "tool_call", at, record, prev);
    const line = entryLine({ seq, kind: "tool_call", at, record, prev_sha256: prev, entry_sha256: sha });
    for (const n of appendNodes(seq - 1, leafHash(encoder.encode(line)), reader))
      nodes.set(`${n.level}/${n.index}`, n.hash);
    prev = sha;
  }
}

run(2_000, 0); // warm-up
const t0 = process.hrtime.bigint();
run(ENTRIES, 2_000);
const us = Number(process.hrtime.bigint() - t0) / 1_000 / ENTRIES;
process.stdout.write(`${JSON.stringify({ entries: ENTRIES, us_per_append: Number(us.toFixed(2)) })}\n`);
