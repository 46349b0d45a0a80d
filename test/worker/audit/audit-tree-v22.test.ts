/**
 * Schema v22 re-keys the audit log's Merkle tree by the order appends store its nodes. An object
 * whose tree was stored at v21 (keyed by level and index) moves it in bounded steps, resuming
 * after a restart: every node keeps its hash, sits at the position its definition gives, and the
 * roots, ranges and appends over the moved table are RFC 9162's (checked against a recursive
 * definition over WebCrypto SHA-256, apart from the code under test).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { entryLine, rootHash } from "../../../src/core/audit";
import { AuditStore } from "../../../src/worker/features/audit/store";
import { AuditTree } from "../../../src/worker/features/audit/tree";
import { migrate, storedSchemaVersion } from "../../../src/worker/kernel/migrations";
import { createConsumer } from "../../kit";
import { hex, mth, sampleEntry } from "../../support/merkle-definition";
import { sha256 } from "../../support/web-sha256";

const CONSUMER = "audit-tree-v22";
const LEAVES = 1_000;

/** Every complete aligned subtree over `leaves`: level 0 the leaves, then each full pair's parent. */
async function completeNodes(leaves: Uint8Array[]): Promise<Array<{ level: number; idx: number; hash: Uint8Array }>> {
  const out = leaves.map((hash, idx) => ({ level: 0, idx, hash }));
  let below = leaves;
  for (let level = 1; below.length >= 2; level++) {
    const above: Uint8Array[] = [];
    for (let i = 0; i + 1 < below.length; i += 2)
      above.push(await sha256(Uint8Array.of(1), below[i] as Uint8Array, below[i + 1] as Uint8Array));
    above.forEach((hash, idx) => out.push({ level, idx, hash }));
    below = above;
  }
  return out;
}

describe("the audit tree's v22 migration", () => {
  it("moves a v21 tree to positions in append order in bounded steps, node for node, and roots, ranges and appends hold", async () => {
    await createConsumer(CONSUMER, ["get_order"], []);
    const leaves = await Promise.all(
      Array.from({ length: LEAVES }, (_, i) => sha256(new TextEncoder().encode(`leaf ${i}`))),
    );
    const nodes = await completeNodes(leaves);
    // Three entries appended after the migration, as the object would.
    const later = [1_001, 1_002, 1_003].map(sampleEntry);
    const laterLeaves = await Promise.all(
      later.map((e) => sha256(Uint8Array.of(0), new TextEncoder().encode(entryLine(e)))),
    );
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
    const seen = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      // The tree as v9 created it and v21 left it.
      sql.exec("DROP TABLE audit_tree");
      sql.exec(
        "CREATE TABLE audit_tree (\n    level INTEGER NOT NULL,\n    idx INTEGER NOT NULL,\n    hash BLOB NOT NULL,\n    PRIMARY KEY (level, idx)\n  ) WITHOUT ROWID",
      );
      for (const node of nodes)
        sql.exec(
          "INSERT INTO audit_tree (level, idx, hash) VALUES (?, ?, ?)",
          node.level,
          node.idx,
          node.hash.slice().buffer,
        );
      sql.exec("UPDATE meta SET value = 21 WHERE key = 'schema_version'");
      const from = state.storage.transactionSync(() => migrate(sql));
      const count = (table: string) => sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
      // Steps of 300 leaves; the object restarts (a new store) after the second.
      let store = new AuditStore(sql);
      const steps: boolean[] = [];
      const split: number[][] = [];
      for (let i = 0; i < 2; i++) {
        steps.push(state.storage.transactionSync(() => store.rekeyStep(300)));
        split.push([count("audit_tree"), count("audit_tree_v22")]);
      }
      store = new AuditStore(sql);
      for (;;) {
        const more = state.storage.transactionSync(() => store.rekeyStep(300));
        steps.push(more);
        if (!more) break;
      }
      const tables = sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE name LIKE 'audit_tree%' ORDER BY name")
        .toArray()
        .map((row) => row.name);
      const rows = sql
        .exec<{ pos: number; level: number; idx: number; hash: ArrayBuffer }>(
          "SELECT pos, level, idx, hash FROM audit_tree ORDER BY pos",
        )
        .toArray()
        .map((row) => ({ pos: row.pos, level: row.level, idx: row.idx, hash: hex(new Uint8Array(row.hash)) }));
      const roots = [1, 7, 256, 999, LEAVES].map((size) => hex(rootHash(store, size)));
      const range = store.nodes(0, 256, 512).map((node) => hex(node.hash));
      const upper = store.nodes(3, 10, 20).map((node) => node.idx);
      const size = store.treeSize();
      const tree = new AuditTree(store);
      const appended = later.map((e) => hex(tree.append(e)));
      return {
        from,
        steps,
        split,
        tables,
        version: storedSchemaVersion(sql),
        rows,
        roots,
        range,
        upper,
        size,
        appended,
        rootAfter: hex(rootHash(store, LEAVES + later.length)),
        sizeAfter: new AuditStore(sql).treeSize(),
        last: sql.exec<{ pos: number }>("SELECT pos FROM audit_tree ORDER BY pos DESC LIMIT 1").one().pos,
      };
    });
    expect(seen.from).toBe(21);
    // The nodes leaves [0, m) complete: Σ ⌊m / 2^level⌋ = 2m − popcount(m), so 2·300 − 4 = 596 and
    // 2·600 − 4 = 1,196 of the 1,994 have moved after two steps. Four steps move them all (the last
    // the nodes of leaves 900–999); a fifth finds the old table empty and renames the new one.
    expect(seen.split).toEqual([
      [1_994 - 596, 596],
      [1_994 - 1_196, 1_196],
    ]);
    expect(seen.steps).toEqual([true, true, true, true, false]);
    expect(seen.tables).toEqual(["audit_tree"]);
    expect(seen.version).toBe(22);
    // Node (level, idx) is completed by leaf (idx + 1)·2^level − 1; 64 positions per leaf, one per level.
    const expected = nodes
      .map((node) => ({
        pos: ((node.idx + 1) * 2 ** node.level - 1) * 64 + node.level,
        level: node.level,
        idx: node.idx,
        hash: hex(node.hash),
      }))
      .sort((a, b) => a.pos - b.pos);
    expect(seen.rows).toHaveLength(1_994);
    expect(seen.rows).toEqual(expected);
    expect(seen.roots).toEqual(
      await Promise.all([1, 7, 256, 999, LEAVES].map(async (size) => hex(await mth(leaves.slice(0, size))))),
    );
    expect(seen.range).toEqual(leaves.slice(256, 512).map(hex));
    expect(seen.upper).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(seen.size).toBe(LEAVES);
    expect(seen.appended).toEqual(laterLeaves.map(hex));
    expect(seen.rootAfter).toBe(hex(await mth([...leaves, ...laterLeaves])));
    expect(seen.sizeAfter).toBe(1_003);
    // The newest leaf, index 1,002, is even: it completes no parent, so the last row is the leaf itself.
    expect(seen.last).toBe(1_002 * 64);
  });
});
