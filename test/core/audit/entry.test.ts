import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { entryDigest, entryLeafHash, entryLine, type ChainEntry } from "../../../src/core/audit";

const ENTRY: ChainEntry = {
  seq: 3,
  kind: "tool_call.completed",
  at: 1700000000123,
  record: '{"call_id":"c-1","note":"é ✓","status":"succeeded"}',
  prev_sha256: "ab".repeat(32),
  entry_sha256: "cd".repeat(32),
};

describe("entry lines", () => {
  it("are the canonical JSON of the entry, record verbatim, keys in code-point order", () => {
    expect(entryLine(ENTRY)).toBe(
      '{"at":1700000000123,"entry_sha256":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd","kind":"tool_call.completed",' +
        '"prev_sha256":"abababababababababababababababababababababababababababababababab",' +
        '"record":{"call_id":"c-1","note":"é ✓","status":"succeeded"},"seq":3}',
    );
  });

  it("escape a kind as JSON", () => {
    expect(entryLine({ ...ENTRY, kind: 'a"b\\c\n' })).toContain('"kind":"a\\"b\\\\c\\n",');
  });

  it("hash to the RFC 9162 leaf of the line's UTF-8", () => {
    const expected = createHash("sha256")
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(entryLine(ENTRY), "utf8")]))
      .digest("hex");
    expect(Buffer.from(entryLeafHash(ENTRY)).toString("hex")).toBe(expected);
  });

  it("carry the fields the chain digest commits to", () => {
    const digest = entryDigest(ENTRY.seq, ENTRY.kind, ENTRY.at, ENTRY.record, ENTRY.prev_sha256);
    const line = entryLine({ ...ENTRY, entry_sha256: digest });
    const withoutDigest = line.replace(`"entry_sha256":"${digest}",`, "");
    expect(createHash("sha256").update(withoutDigest, "utf8").digest("hex")).toBe(digest);
  });
});
