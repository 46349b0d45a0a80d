/**
 * The engine's SQL store, on a real object's SQLite with every statement it sends recorded:
 * - it holds in-flight marks set inside `holdingMarks` until its end: a mark set and cleared there
 *   (an in-process tool's run, in step one's transaction) never reaches SQLite, and the table holds
 *   at the end exactly what writing each mark at once would have left;
 * - `claim` stores a call identity in one statement, new or repeated (restamped), and reads the
 *   row only when another value holds the key.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SqlToolResultStore } from "../../../src/worker/features/tool-calls/store";
import { createConsumer } from "../../kit";

const CONSUMER = "records-store";
const MARK = { state: "running", n: 1 };

/** The object's SQL handle, recording the first word and the table of each statement sent (`INSERT in_flight`). */
function recording(sql: SqlStorage): { sql: SqlStorage; sent: string[] } {
  const sent: string[] = [];
  const proxy = new Proxy(sql, {
    get(target, name) {
      if (name !== "exec") return Reflect.get(target, name) as unknown;
      return (query: string, ...bindings: unknown[]) => {
        const table = typeof bindings[0] === "string" && /\btbl = \?|\(tbl,/.test(query) ? ` ${bindings[0]}` : "";
        sent.push(`${query.trim().split(/\s+/)[0]}${table}`);
        return target.exec(query, ...bindings);
      };
    },
  });
  return { sql: proxy, sent };
}

/** The `records` rows of a table, as key → value text. */
const rows = (sql: SqlStorage, table: string) =>
  sql
    .exec<{ key: string; value: string }>("SELECT key, value FROM records WHERE tbl = ? ORDER BY key", table)
    .toArray();

/** Runs `step` in the test consumer's object: its SQL handle recorded, and the handle itself (`raw`) for the checks. */
async function inObject<T>(step: (recorded: ReturnType<typeof recording>, raw: SqlStorage) => T): Promise<T> {
  await createConsumer(CONSUMER, ["get_order"], []);
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
  return runInDurableObject(stub, (_object, state) => step(recording(state.storage.sql), state.storage.sql));
}

describe("in-flight marks held until step one's end", () => {
  it("never writes a mark set and cleared inside, writes one left set, and leaves what writing at once would", async () => {
    const seen = await inObject(({ sql, sent }, raw) => {
      const store = new SqlToolResultStore(sql, () => 1_784_419_200);
      raw.exec("DELETE FROM records WHERE tbl = 'in_flight'");

      // Set and cleared inside, as the engine does around an in-process tool: no statement on in_flight writes.
      const inline = store.holdingMarks(() => {
        const before = store.get("in_flight", "a");
        store.put("in_flight", "a", MARK);
        const during = store.get("in_flight", "a");
        store.delete("in_flight", "a");
        return { before, during, after: store.get("in_flight", "a") };
      });
      const inlineSent = sent.splice(0);
      const afterInline = rows(raw, "in_flight");

      // Set inside and left set (an external tool's write): written when the step ends, not before.
      let insideRows: unknown[] = [];
      store.holdingMarks(() => {
        store.get("in_flight", "b");
        store.put("in_flight", "b", MARK);
        insideRows = rows(raw, "in_flight");
      });
      const leftSent = sent.splice(0);
      const afterLeft = rows(raw, "in_flight");

      // A mark already stored, replaced and cleared inside: the stored row is deleted.
      store.holdingMarks(() => {
        store.put("in_flight", "b", { state: "replaced" });
        store.delete("in_flight", "b");
      });
      const replacedSent = sent.splice(0);
      const afterReplaced = rows(raw, "in_flight");

      // A step that throws writes nothing of what it held.
      let threw = "";
      try {
        store.holdingMarks(() => {
          store.put("in_flight", "c", MARK);
          throw new Error("step failed");
        });
      } catch (error) {
        threw = (error as Error).message;
      }
      const thrownSent = sent.splice(0);

      // Recovery's listing sees held marks beside stored ones, in order; other tables are written at once.
      raw.exec(
        "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES ('in_flight', 'd', '{\"stored\":true}', 1, 3)",
      );
      const listed = store.holdingMarks(() => {
        store.put("in_flight", "e", MARK);
        const claims = [
          store.claim("in_flight", "e", MARK) ?? null,
          store.claim("in_flight", "e", { state: "other" }) ?? null,
        ];
        store.put("call_fingerprints", "f", { n: 2 });
        return { claims, entries: store.entries("in_flight"), fingerprint: rows(raw, "call_fingerprints") };
      });
      raw.exec("DELETE FROM records WHERE key IN ('d', 'e', 'f')");
      return {
        inline,
        inlineSent,
        afterInline,
        insideRows,
        leftSent,
        afterLeft,
        replacedSent,
        afterReplaced,
        threw,
        thrownSent,
        afterThrown: rows(raw, "in_flight"),
        listed,
      };
    });
    expect(seen).toEqual({
      inline: { before: undefined, during: MARK, after: undefined },
      inlineSent: ["SELECT in_flight", "SELECT in_flight"],
      afterInline: [],
      insideRows: [],
      leftSent: ["SELECT in_flight", "INSERT in_flight"],
      afterLeft: [{ key: "b", value: '{"n":1,"state":"running"}' }],
      replacedSent: ["DELETE in_flight"],
      afterReplaced: [],
      threw: "step failed",
      thrownSent: [],
      afterThrown: [],
      listed: {
        claims: [null, MARK],
        entries: [
          ["d", { stored: true }],
          ["e", MARK],
        ],
        fingerprint: [{ key: "f", value: '{"n":2}' }],
      },
    });
  });
});

describe("claim", () => {
  it("stores a new value and restamps the same one in one statement, and answers another value held without touching it", async () => {
    const seen = await inObject(({ sql, sent }, raw) => {
      let now = 1_000;
      const store = new SqlToolResultStore(sql, () => now);
      const row = () =>
        raw
          .exec<{ value: string; stored_at: number }>(
            "SELECT value, stored_at FROM records WHERE tbl = 'call_fingerprints' AND key = 'k'",
          )
          .toArray();
      const step = (value: string) => {
        const answer = store.claim("call_fingerprints", "k", value) ?? null;
        return { answer, sent: sent.splice(0), row: row() };
      };
      const steps = [step("fp-a"), ((now = 2_000), step("fp-a")), ((now = 3_000), step("fp-b"))];
      raw.exec("DELETE FROM records WHERE tbl = 'call_fingerprints' AND key = 'k'");
      return steps;
    });
    expect(seen).toEqual([
      { answer: null, sent: ["INSERT call_fingerprints"], row: [{ value: '"fp-a"', stored_at: 1_000 }] },
      { answer: null, sent: ["INSERT call_fingerprints"], row: [{ value: '"fp-a"', stored_at: 2_000 }] },
      {
        answer: "fp-a",
        sent: ["INSERT call_fingerprints", "SELECT call_fingerprints"],
        row: [{ value: '"fp-a"', stored_at: 2_000 }],
      },
    ]);
  });
});
