/**
 * The verifiable audit log in workerd: every entry is a leaf of an RFC 9162 tree, checkpoints
 * are signed notes whose root this test recomputes on its own (crypto.subtle, RFC 9162 §2.1.1)
 * from the export alone, proofs verify against the signed roots, every signed checkpoint is in
 * the witness bucket, the alarm signs after AUDIT_CHECKPOINT_EVERY entries, and every tool-call
 * answer carries the entry that recorded it.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  decodeBase64,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  verifyConsistency,
  verifyInclusion,
} from "../../../src/core/audit";
import { ADMIN_TOKEN, context, credential, send, wipe } from "../../kit";
import { sha256 } from "../../support/web-sha256";
import { mth } from "../../support/merkle-definition";

const CONSUMER = "audit-log-a";
const CALLS = 300;
/** The verifier key of the test signing key bound in vitest.config.ts (seed 01 02 … 20). */
const TEST_VERIFIER_KEY = "toolgate-test+f62e6223+AXm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk";
const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
const encoder = new TextEncoder();

const leafOf = (line: string) => sha256(new Uint8Array([0]), encoder.encode(line));
const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

async function json<T>(path: string, token: string | null): Promise<{ status: number; body: T }> {
  const res = await send("GET", path, token);
  return { status: res.status, body: (await res.json()) as T };
}

interface CheckpointView {
  size: number;
  root: string;
  checkpoint: string;
}

/** Opens a signed note with the published key and reads its checkpoint. */
function opened(note: string, key: string): { size: number; root: Uint8Array; origin: string } {
  const verifier = parseVerifierKey(key);
  if (!verifier.ok) throw new Error(verifier.error);
  const text = openNote(note, [verifier.value]);
  if (!text.ok) throw new Error(text.error);
  const parsed = parseCheckpoint(text.value.text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

async function exported(auditor: string): Promise<{ entries: number; lines: string[]; note: string; text: string }> {
  const res = await send("GET", `/v1/consumers/${CONSUMER}/audit/export`, auditor);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
  const text = new TextDecoder().decode(await res.arrayBuffer());
  const lines = text.split("\n");
  expect(lines.pop()).toBe("");
  const last = JSON.parse(lines.pop() as string) as { checkpoint: string };
  return { entries: Number(res.headers.get("toolgate-audit-entries")), lines, note: last.checkpoint, text };
}

let agent = "";
let auditor = "";
const answers: Array<{ audit: { seq: number; leaf_hash: string } }> = [];

beforeAll(async () => {
  await wipe(CONSUMER, "audit-log-b");
  const limits = { calls_per_second: 100_000, call_burst: 100_000 };
  const res = await send("PUT", `/v1/consumers/${CONSUMER}`, ADMIN_TOKEN, {
    tools: ["get_order"],
    approver_subjects: [],
    limits,
  });
  expect(res.status).toBe(200);
  agent = (await credential(CONSUMER, "agent")).secret;
  auditor = (await credential(CONSUMER, "auditor")).secret;
  for (let i = 0; i < CALLS; i++) {
    const call = await send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      context: context(`call-${i}`),
    });
    expect(call.status).toBe(200);
    answers.push((await call.json()) as { audit: { seq: number; leaf_hash: string } });
  }
}, 120_000);

describe("the verifiable audit log", () => {
  it("signs after AUDIT_CHECKPOINT_EVERY entries from the alarm, never per call, and the witness holds it", async () => {
    // 3 setup entries + 300 calls: the alarm was asked for at entry 256 (it may have run already).
    await runDurableObjectAlarm(stub());
    const sizes = await runInDurableObject(stub(), (_o, state) =>
      [...state.storage.sql.exec<{ size: number }>("SELECT size FROM audit_checkpoints ORDER BY size")].map(
        (r) => r.size,
      ),
    );
    expect(sizes.length).toBe(1);
    expect(sizes[0]).toBeGreaterThanOrEqual(256);
    expect(sizes[0]).toBeLessThanOrEqual(303);
    const witnessed = await env.AUDIT_WITNESS!.get(
      `consumers/${CONSUMER}/checkpoints/${String(sizes[0]).padStart(20, "0")}`,
    );
    const note = await runInDurableObject(
      stub(),
      (_o, state) => [...state.storage.sql.exec<{ note: string }>("SELECT note FROM audit_checkpoints")][0]?.note,
    );
    expect(await witnessed?.text()).toBe(note);
    // Idempotent: nothing more is due.
    await runDurableObjectAlarm(stub());
    expect(
      await runInDurableObject(
        stub(),
        (_o, state) => [...state.storage.sql.exec("SELECT size FROM audit_checkpoints")].length,
      ),
    ).toBe(1);
  });

  it("publishes the verifier key, and the checkpoint's root is the one recomputed from the export", async () => {
    const keys = await json<{ keys: string[] }>("/v1/audit/verifier-keys", null);
    expect(keys).toEqual({ status: 200, body: { keys: [TEST_VERIFIER_KEY] } });
    const cp = await json<CheckpointView>(`/v1/consumers/${CONSUMER}/audit/checkpoint`, auditor);
    expect(cp.status).toBe(200);
    expect(cp.body.size).toBe(303);
    const checkpoint = opened(cp.body.checkpoint, TEST_VERIFIER_KEY);
    expect(checkpoint.origin).toBe(`toolgate/consumers/${CONSUMER}`);
    expect(checkpoint.size).toBe(303);
    const exp = await exported(auditor);
    expect(exp.entries).toBe(303);
    expect(exp.lines.length).toBe(303);
    expect(exp.note).toBe(cp.body.checkpoint);
    const root = await mth(await Promise.all(exp.lines.map(leafOf)));
    expect(b64(checkpoint.root)).toBe(b64(root));
    expect(cp.body.root).toBe(b64(root));
  });

  it("exports exactly the entries of the audit pages, one canonical line each", async () => {
    const exp = await exported(auditor);
    const paged: unknown[] = [];
    for (let after = 0; after < 303; after += 100) {
      const page = await json<{ entries: unknown[] }>(
        `/v1/consumers/${CONSUMER}/audit?after=${after}&limit=100`,
        auditor,
      );
      paged.push(...page.body.entries);
    }
    expect(exp.lines.map((line) => JSON.parse(line))).toEqual(paged);
    expect(exp.lines[0]?.startsWith('{"at":')).toBe(true);
    expect(JSON.parse(exp.lines[0] as string).kind).toBe("consumer.configured");
  });

  it("gives every tool-call answer the seq and leaf hash of the entry that recorded it", async () => {
    const exp = await exported(auditor);
    expect(answers[0]?.audit.seq).toBe(4);
    for (const i of [0, 1, 150, 299]) {
      const answer = answers[i]!;
      expect(answer.audit.seq).toBe(4 + i);
      const line = exp.lines[answer.audit.seq - 1] as string;
      expect(JSON.parse(line).kind).toBe("tool_call");
      expect(answer.audit.leaf_hash).toBe(hex(await leafOf(line)));
    }
  });

  it("answers inclusion proofs that verify against the signed root", async () => {
    const exp = await exported(auditor);
    const root = opened(exp.note, TEST_VERIFIER_KEY).root;
    for (const seq of [1, 2, 128, 257, 303]) {
      const proof = await json<{
        seq: number;
        leaf_index: number;
        tree_size: number;
        leaf_hash: string;
        proof: string[];
      }>(`/v1/consumers/${CONSUMER}/audit/proof/inclusion?seq=${seq}`, auditor);
      expect(proof.status).toBe(200);
      const leaf = await leafOf(exp.lines[seq - 1] as string);
      expect({ ...proof.body, proof: [] }).toEqual({
        seq,
        leaf_index: seq - 1,
        tree_size: 303,
        leaf_hash: b64(leaf),
        proof: [],
      });
      expect(
        verifyInclusion(
          leaf,
          seq - 1,
          303,
          proof.body.proof.map((p) => decodeBase64(p)!),
          root,
        ),
      ).toBe(true);
    }
    const small = await json<{ tree_size: number; proof: string[] }>(
      `/v1/consumers/${CONSUMER}/audit/proof/inclusion?seq=5&size=10`,
      auditor,
    );
    const root10 = await mth(await Promise.all(exp.lines.slice(0, 10).map(leafOf)));
    expect(
      verifyInclusion(
        await leafOf(exp.lines[4] as string),
        4,
        10,
        small.body.proof.map((p) => decodeBase64(p)!),
        root10,
      ),
    ).toBe(true);
  });

  it("answers a consistency proof between two signed checkpoints", async () => {
    const first = await json<CheckpointView>(`/v1/consumers/${CONSUMER}/audit/checkpoint`, auditor);
    for (let i = 0; i < 5; i++) {
      const call = await send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, {
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        context: context(`more-${i}`),
      });
      expect(call.status).toBe(200);
    }
    const second = await json<CheckpointView>(`/v1/consumers/${CONSUMER}/audit/checkpoint`, auditor);
    expect([first.body.size, second.body.size]).toEqual([303, 308]);
    const proof = await json<{ from: number; to: number; proof: string[] }>(
      `/v1/consumers/${CONSUMER}/audit/proof/consistency?from=303&to=308`,
      auditor,
    );
    expect(proof.status).toBe(200);
    expect([proof.body.from, proof.body.to]).toEqual([303, 308]);
    const [a, b] = [
      opened(first.body.checkpoint, TEST_VERIFIER_KEY),
      opened(second.body.checkpoint, TEST_VERIFIER_KEY),
    ];
    expect(
      verifyConsistency(
        303,
        308,
        proof.body.proof.map((p) => decodeBase64(p)!),
        a.root,
        b.root,
      ),
    ).toBe(true);
    // Every signed checkpoint is in the witness bucket, byte for byte.
    const listed = await env.AUDIT_WITNESS!.list({ prefix: `consumers/${CONSUMER}/checkpoints/` });
    const sizes = listed.objects.map((o: R2Object) => Number(o.key.split("/").pop()));
    expect(sizes.slice(-2)).toEqual([303, 308]);
    expect(await (await env.AUDIT_WITNESS!.get(`consumers/${CONSUMER}/checkpoints/00000000000000000308`))?.text()).toBe(
      second.body.checkpoint,
    );
  });

  it("refuses bad proof queries with INVALID_REQUEST", async () => {
    const base = `/v1/consumers/${CONSUMER}/audit/proof`;
    for (const query of [
      "inclusion?seq=0",
      "inclusion?seq=abc",
      "inclusion",
      "inclusion?seq=5&size=4",
      "inclusion?seq=1&size=100000",
      "consistency?from=5&to=4",
      "consistency?from=1&to=100000",
      "consistency?from=1",
    ]) {
      const res = await json<{ code: string }>(`${base}/${query}`, auditor);
      expect([query, res.status, res.body.code]).toEqual([query, 400, "INVALID_REQUEST"]);
    }
    const agentTries = await json<{ code: string }>(`/v1/consumers/${CONSUMER}/audit/checkpoint`, agent);
    expect(agentTries.status).toBe(403);
  });

  it("answers AUDIT_SIGNING_NOT_CONFIGURED without a signing key; proofs still work", async () => {
    const envOf = (o: unknown) => (o as { env: Record<string, unknown> }).env;
    const saved = await runInDurableObject(stub(), (o) => {
      const key = envOf(o).TOOLGATE_AUDIT_SIGNING_KEY;
      envOf(o).TOOLGATE_AUDIT_SIGNING_KEY = "";
      return key;
    });
    try {
      for (const path of [
        `/v1/consumers/${CONSUMER}/audit/checkpoint`,
        `/v1/consumers/${CONSUMER}/audit/export`,
        "/v1/audit/verifier-keys",
      ]) {
        const res = await json<{ code: string }>(path, auditor);
        expect([path, res.status, res.body.code]).toEqual([path, 404, "AUDIT_SIGNING_NOT_CONFIGURED"]);
      }
      const proof = await json<{ tree_size: number }>(`/v1/consumers/${CONSUMER}/audit/proof/inclusion?seq=1`, auditor);
      expect(proof.body.tree_size).toBe(308);
    } finally {
      await runInDurableObject(stub(), (o) => void (envOf(o).TOOLGATE_AUDIT_SIGNING_KEY = saved));
    }
  });

  it("builds the tree of a chain stored before it (schema v9 backfill) on the object's first use", async () => {
    await runInDurableObject(stub(), (_o, state) => void state.storage.sql.exec("DELETE FROM audit_tree"));
    await abortAllDurableObjects();
    const exp = await exported(auditor);
    expect(exp.entries).toBe(308);
    const root = await mth(await Promise.all(exp.lines.map(leafOf)));
    expect(b64(opened(exp.note, TEST_VERIFIER_KEY).root)).toBe(b64(root));
    const rows = await runInDurableObject(
      stub(),
      (_o, state) =>
        [...state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit_tree WHERE level = 0")][0]?.n,
    );
    expect(rows).toBe(308);
  });
});
