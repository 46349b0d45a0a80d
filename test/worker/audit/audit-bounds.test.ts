/**
 * The audit plane's bounds: `audit/verify` checks at most page_items × 10 entries per call and
 * resumes from an opaque cursor (a break is reported on whichever step it lies); `audit` pages
 * hold at most page_items entries and continue with an opaque cursor. Long chains are written
 * straight into the object's table (correctly linked), then the object is restarted so its
 * cached head is the stored one.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { entryDigest } from "../../../src/core/audit";
import { DEFAULT_LIMITS } from "../../../src/worker/kernel/limits";
import { ADMIN_TOKEN, createConsumer, credential, send, wipe } from "../../kit";

const CONSUMER = "audit-bounds";
const CHAIN = 2_500;
const STEP = DEFAULT_LIMITS.page_items * 10;
const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));

interface Verification {
  ok: boolean;
  count: number;
  head: string;
  broken_at: number | null;
  next_cursor: string | null;
}

interface Page {
  entries: Array<{ seq: number; kind: string; entry_sha256: string }>;
  next_cursor: string | null;
  next_after: number | null;
}

/** Every stored digest, by sequence number (index 0 unused). */
async function digests(): Promise<string[]> {
  return runInDurableObject(stub(), (_o, state) => [
    "",
    ...[...state.storage.sql.exec<{ entry_sha256: string }>("SELECT entry_sha256 FROM audit_chain ORDER BY seq")].map(
      (r) => r.entry_sha256,
    ),
  ]);
}

/** Extends the consumer's chain to `length` correctly linked entries, then restarts the object. */
async function extendChain(length: number): Promise<void> {
  await runInDurableObject(stub(), (_o, state) => {
    const sql = state.storage.sql;
    const head = [
      ...sql.exec<{ seq: number; entry_sha256: string }>(
        "SELECT seq, entry_sha256 FROM audit_chain ORDER BY seq DESC LIMIT 1",
      ),
    ][0];
    let prev = head?.entry_sha256 ?? "0".repeat(64);
    state.storage.transactionSync(() => {
      for (let seq = (head?.seq ?? 0) + 1; seq <= length; seq++) {
        const record = `{"n":${seq}}`;
        const sha = entryDigest(seq, "test.filler", 1_700_000_000, record, prev);
        sql.exec(
          "INSERT INTO audit_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
          seq,
          "test.filler",
          1_700_000_000,
          record,
          prev,
          sha,
        );
        prev = sha;
      }
    });
  });
  await abortAllDurableObjects();
}

/** Changes the record text of entry `seq` (its stored digests stay), runs `during`, restores it. */
async function tampered<T>(seq: number, during: () => Promise<T>): Promise<T> {
  const edit = (record: string) =>
    runInDurableObject(
      stub(),
      (_o, state) => void state.storage.sql.exec("UPDATE audit_chain SET record = ? WHERE seq = ?", record, seq),
    );
  await edit(`{"n":${seq},"edited":true}`);
  try {
    return await during();
  } finally {
    await edit(`{"n":${seq}}`);
  }
}

async function verify(auditor: string, cursor: string | null = null): Promise<Verification> {
  const res = await send(
    "GET",
    `/v1/consumers/${CONSUMER}/audit/verify${cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`}`,
    auditor,
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Verification;
}

/** Walks `verify` from the start until `next_cursor` is null; answers every step. */
async function walk(auditor: string): Promise<Verification[]> {
  const steps = [await verify(auditor)];
  for (let cursor = steps[0]?.next_cursor ?? null; cursor !== null && steps.length < 10;) {
    const step = await verify(auditor, cursor);
    steps.push(step);
    cursor = step.next_cursor;
  }
  return steps;
}

/** The steps without their cursors (a cursor is opaque; its presence is what matters). */
const shape = (steps: Verification[]) =>
  steps.map((s) => ({ ...s, next_cursor: s.next_cursor === null ? null : "cursor" }));

async function problemCode(res: Response): Promise<{ status: number; code: string }> {
  return { status: res.status, code: ((await res.json()) as { code: string }).code };
}

/** A cursor-shaped value the gate never answered: base64url of `text`. */
const forged = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

let auditor: string;

beforeEach(async () => {
  await wipe(CONSUMER);
  await createConsumer(CONSUMER, [], []);
  auditor = (await credential(CONSUMER, "auditor")).secret;
});

describe("audit verify", () => {
  it("hole: audit verify is bounded and resumable", async () => {
    await extendChain(CHAIN);
    const d = await digests();
    expect(d.length).toBe(CHAIN + 1);
    const clean = await walk(auditor);
    expect(shape(clean)).toEqual([
      { ok: true, count: STEP, head: d[STEP], broken_at: null, next_cursor: "cursor" },
      { ok: true, count: 2 * STEP, head: d[2 * STEP], broken_at: null, next_cursor: "cursor" },
      { ok: true, count: CHAIN, head: d[CHAIN], broken_at: null, next_cursor: null },
    ]);
    // A changed entry is reported on whichever step it lies, and the walk ends there.
    expect(shape(await tampered(10, () => walk(auditor)))).toEqual([
      { ok: false, count: 9, head: d[9], broken_at: 10, next_cursor: null },
    ]);
    expect(shape(await tampered(1_500, () => walk(auditor)))).toEqual([
      { ok: true, count: STEP, head: d[STEP], broken_at: null, next_cursor: "cursor" },
      { ok: false, count: 1_499, head: d[1_499], broken_at: 1_500, next_cursor: null },
    ]);
    expect(shape(await tampered(CHAIN, () => walk(auditor)))).toEqual([
      { ok: true, count: STEP, head: d[STEP], broken_at: null, next_cursor: "cursor" },
      { ok: true, count: 2 * STEP, head: d[2 * STEP], broken_at: null, next_cursor: "cursor" },
      { ok: false, count: CHAIN - 1, head: d[CHAIN - 1], broken_at: CHAIN, next_cursor: null },
    ]);
    // The entry a cursor vouches for is replaced between two steps: the resumed step says so.
    const cursor = clean[0]?.next_cursor ?? "";
    await runInDurableObject(
      stub(),
      (_o, state) =>
        void state.storage.sql.exec("UPDATE audit_chain SET entry_sha256 = ? WHERE seq = ?", "f".repeat(64), STEP),
    );
    expect(await verify(auditor, cursor)).toEqual({
      ok: false,
      count: STEP,
      head: d[STEP],
      broken_at: STEP,
      next_cursor: null,
    });
    await runInDurableObject(
      stub(),
      (_o, state) =>
        void state.storage.sql.exec("UPDATE audit_chain SET entry_sha256 = ? WHERE seq = ?", d[STEP] ?? "", STEP),
    );
    expect(shape(await walk(auditor))).toEqual(shape(clean));
  });

  it("answers a short chain in one step", async () => {
    const d = await digests();
    expect(await verify(auditor)).toEqual({ ok: true, count: 2, head: d[2], broken_at: null, next_cursor: null });
  });

  it("refuses a cursor it did not answer with 400 INVALID_CURSOR, after authenticating", async () => {
    await extendChain(STEP + 5);
    const good = (await verify(auditor)).next_cursor ?? "";
    const page =
      ((await (await send("GET", `/v1/consumers/${CONSUMER}/audit`, auditor)).json()) as Page).next_cursor ?? "";
    const bad = [
      "garbage!",
      `${good}=`,
      good.slice(0, -1),
      page,
      forged("audit-verify:v1:0:" + "0".repeat(64)),
      forged("audit-verify:v1:01:" + "0".repeat(64)),
      forged("audit-verify:v1:12:" + "A".repeat(64)),
      forged("audit-verify:v1:99999999999999999:" + "0".repeat(64)),
    ];
    const answers = [];
    for (const cursor of bad)
      answers.push(
        await problemCode(
          await send("GET", `/v1/consumers/${CONSUMER}/audit/verify?cursor=${encodeURIComponent(cursor)}`, auditor),
        ),
      );
    expect(answers).toEqual(bad.map(() => ({ status: 400, code: "INVALID_CURSOR" })));
    expect(
      await problemCode(
        await send("GET", `/v1/consumers/${CONSUMER}/audit?cursor=${encodeURIComponent(good)}`, auditor),
      ),
    ).toEqual({ status: 400, code: "INVALID_CURSOR" });
    expect(
      await problemCode(await send("GET", `/v1/consumers/${CONSUMER}/audit/verify?cursor=${"A".repeat(257)}`, auditor)),
    ).toEqual({ status: 400, code: "INVALID_REQUEST" });
    expect((await send("GET", `/v1/consumers/${CONSUMER}/audit/verify?cursor=garbage!`, null)).status).toBe(401);
  });
});

describe("audit pages", () => {
  it("serves at most page_items entries per page and walks the chain by cursor", async () => {
    await extendChain(CHAIN);
    const d = await digests();
    const first = (await (await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=500`, auditor)).json()) as Page;
    expect(first.entries.map((e) => e.seq)).toEqual(Array.from({ length: DEFAULT_LIMITS.page_items }, (_, i) => i + 1));
    expect(first.next_after).toBe(DEFAULT_LIMITS.page_items);
    const small = (await (
      await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=3&cursor=${first.next_cursor}`, auditor)
    ).json()) as Page;
    expect(small.entries.map((e) => e.seq)).toEqual([101, 102, 103]);
    expect(small.next_after).toBe(103);
    const byAfter = (await (
      await send("GET", `/v1/consumers/${CONSUMER}/audit?after=100&limit=3`, auditor)
    ).json()) as Page;
    expect(byAfter).toEqual(small);
    const seen: string[] = [];
    let pages = 0;
    for (let cursor: string | null = ""; cursor !== null && pages < 100; pages++) {
      const page = (await (
        await send("GET", `/v1/consumers/${CONSUMER}/audit${cursor === "" ? "" : `?cursor=${cursor}`}`, auditor)
      ).json()) as Page;
      seen.push(...page.entries.map((e) => e.entry_sha256));
      cursor = page.next_cursor;
    }
    expect(pages).toBe(CHAIN / DEFAULT_LIMITS.page_items);
    expect(seen).toEqual(d.slice(1));
    expect(
      await problemCode(
        await send("GET", `/v1/consumers/${CONSUMER}/audit?after=1&cursor=${first.next_cursor}`, auditor),
      ),
    ).toEqual({ status: 400, code: "INVALID_REQUEST" });
  });

  it("shows entries appended during a walk on its later pages", async () => {
    const page1 = (await (await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=1`, auditor)).json()) as Page;
    expect(page1.entries.map((e) => e.kind)).toEqual(["consumer.configured"]);
    const res = await send("POST", `/v1/consumers/${CONSUMER}/credentials`, ADMIN_TOKEN, { kind: "agent" });
    expect(res.status).toBe(201);
    const rest = (await (
      await send("GET", `/v1/consumers/${CONSUMER}/audit?cursor=${page1.next_cursor}`, auditor)
    ).json()) as Page;
    expect(rest.entries.map((e) => [e.seq, e.kind])).toEqual([
      [2, "credential.created"],
      [3, "credential.created"],
    ]);
    expect(rest.next_cursor).toBe(null);
    expect(rest.next_after).toBe(null);
  });
});
