/**
 * R5 hostile input, in-process through the Worker's fetch: ≥ 5,000 malformed inputs per surface.
 * Pass: 0 thrown requests, 0 5xx, every refusal a 4xx problem+json whose code is in the catalog
 * with its catalog status.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import enqueueFixture from "../../../fixtures/execution/enqueue.v1.json?raw";
import { prng, report, seedOf } from "../support/figures";
import { hostileAuthorization, hostileInput } from "../support/hostile";
import { ADMIN, callBody, contractBreach, fetchGate, tenant, type Tenant } from "./client";

/** Inputs per surface: `TOOLGATE_R5_PER_SURFACE` (the brief's figure is 5,000; see docs/reliability.md). */
const PER_SURFACE = Number((env as unknown as Record<string, string | undefined>).TOOLGATE_R5_PER_SURFACE ?? "5000");
const BATCH = 16;
const SEED = seedOf(5005);

interface Surface {
  name: string;
  path: (t: Tenant) => string;
  token: (t: Tenant) => string;
  base: unknown;
  method?: string;
}

const SURFACES: Surface[] = [
  { name: "tool calls", path: (t) => `/v1/consumers/${t.name}/tool-calls`, token: (t) => t.agent, base: callBody({ callId: "c-1", tool: "get_order", args: { order_ref: "ORDER-7" }, key: null }) },
  { name: "status queries", path: (t) => `/v1/consumers/${t.name}/tool-calls/status`, token: (t) => t.agent, base: { ...callBody({ callId: "c-2" }), status_ref: "sr_0123456789abcdef" } },
  { name: "approvals", path: (t) => `/v1/consumers/${t.name}/approvals/apr_${"0".repeat(32)}`, token: (t) => t.approver, base: { decision: "approve", approval_digest: "0".repeat(64) } },
  { name: "provider attach+observations", path: (t) => `/v1/consumers/${t.name}/capability/providers/provider-1/observations`, token: (t) => t.provider, base: { binding_id: "1", observation: { sequence: "1", effect_id: "1", kind: "completed", result: { fields: [] } } } },
  { name: "runtime envelopes", path: (t) => `/v1/consumers/${t.name}/runtime/envelopes`, token: (t) => t.runtime, base: JSON.parse(enqueueFixture) },
  { name: "credentials (admin body)", path: (t) => `/v1/consumers/${t.name}/credentials`, token: () => ADMIN, base: { kind: "approver", subject_id: "human-reviewer-1" } },
];

const ROUTES_FOR_AUTH = (t: Tenant): Array<[string, string]> => [
  ["POST", `/v1/consumers/${t.name}/tool-calls`],
  ["POST", `/v1/consumers/${t.name}/tool-calls/status`],
  ["GET", `/v1/consumers/${t.name}/approvals`],
  ["GET", `/v1/consumers/${t.name}/audit`],
  ["GET", `/v1/consumers/${t.name}/audit/verify`],
  ["POST", `/v1/consumers/${t.name}/runtime/envelopes`],
  ["GET", `/v1/consumers/${t.name}/capability/snapshot`],
  ["POST", `/v1/consumers/${t.name}/capability/providers/provider-1/attach`],
  ["PUT", `/v1/consumers/${t.name}`],
  ["POST", `/v1/consumers/${t.name}/credentials`],
];

interface Tally {
  sent: number;
  thrown: number;
  fiveXx: number;
  breaches: Map<string, number>;
  accepted: number;
}

async function fire(tally: Tally, request: () => Request, label: string): Promise<void> {
  tally.sent++;
  try {
    const started = Date.now();
    const r = await Promise.race([
      fetchGate(request()),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("hung")), 10_000)),
    ]);
    const text = await r.text();
    const took = Date.now() - started;
    void took;
    if (r.status >= 500) tally.fiveXx++;
    if (r.status < 300) tally.accepted++;
    const breach = contractBreach(r.status, r.headers.get("content-type"), text);
    if (breach !== null) tally.breaches.set(`${label}: ${breach} ${r.status} ${text.slice(0, 80)}`, (tally.breaches.get(`${label}: ${breach}`) ?? 0) + 1);
  } catch (error) {
    tally.thrown++;
    tally.breaches.set(`${label}: threw ${(error as Error).message.slice(0, 60)}`, (tally.breaches.get(`${label}: threw ${(error as Error).message.slice(0, 60)}`) ?? 0) + 1);
  }
}

describe("R5 hostile input (in-process)", () => {
  let t: Tenant;

  it("refuses every malformed body on every surface with a catalog problem, never a 5xx", async () => {
    t = await tenant("rel-r5");
    const random = prng(SEED);
    const rows: string[] = [];
    let allOk = true;
    for (const surface of SURFACES) {
      const tally: Tally = { sent: 0, thrown: 0, fiveXx: 0, breaches: new Map(), accepted: 0 };
      for (let i = 0; i < PER_SURFACE; i += BATCH) {
        const batch: Promise<void>[] = [];
        for (let j = 0; j < BATCH && i + j < PER_SURFACE; j++) {
          const h = hostileInput(random, surface.base);
          const headers = new Headers();
          headers.set("authorization", `Bearer ${surface.token(t)}`);
          if (h.contentType !== null) headers.set("content-type", h.contentType);
          for (const [k, v] of h.headers) headers.append(k, v);
          const url = `http://gate${surface.path(t)}`;
          batch.push(fire(tally, () => new Request(url, { method: surface.method ?? "POST", headers, body: h.body }), h.family));
        }
        await Promise.all(batch);
      }
      const breaches = [...tally.breaches].map(([k, n]) => `${k} ×${n}`);
      const pass = tally.thrown === 0 && tally.fiveXx === 0 && breaches.length === 0 && tally.sent >= PER_SURFACE;
      allOk &&= pass;
      report({ id: "R5", check: `hostile bodies: ${surface.name}`, figure: `${tally.sent} inputs, ${tally.fiveXx} 5xx, ${tally.thrown} crashes, ${breaches.length} non-catalog, ${tally.accepted} 2xx`, pass, seed: SEED });
      rows.push(...breaches.slice(0, 5));
    }
    expect(rows).toEqual([]);
    expect(allOk).toBe(true);
  });

  it("answers every hostile Authorization header with the one 401 body", async () => {
    const random = prng(SEED + 1);
    const tally: Tally = { sent: 0, thrown: 0, fiveXx: 0, breaches: new Map(), accepted: 0 };
    const bodies = new Set<string>();
    const routes = ROUTES_FOR_AUTH(t);
    for (let i = 0; i < PER_SURFACE; i += BATCH) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < BATCH; j++) {
        const [method, path] = routes[Math.floor(random() * routes.length)] as [string, string];
        const auth = hostileAuthorization(random, random() < 0.5 ? t.agent : t.auditor);
        const headers = new Headers({ "content-type": "application/json" });
        if (auth !== null) headers.set("authorization", auth);
        tally.sent++;
        batch.push(
          (async () => {
            try {
              const r = await fetchGate(new Request(`http://gate${path}`, { method, headers, body: method === "GET" ? null : "{}" }));
              const text = await r.text();
              if (r.status >= 500) tally.fiveXx++;
              if (r.status !== 401) tally.breaches.set(`status ${r.status} for ${method} ${path} ${auth?.slice(0, 30)} ${text.slice(0, 80)}`, 1);
              else bodies.add(`${r.headers.get("www-authenticate")} ${text}`);
            } catch {
              tally.thrown++;
            }
          })(),
        );
      }
      await Promise.all(batch);
    }
    const pass = tally.thrown === 0 && tally.fiveXx === 0 && tally.breaches.size === 0 && bodies.size === 1;
    report({ id: "R5", check: "hostile credentials (Authorization)", figure: `${tally.sent} inputs, ${tally.fiveXx} 5xx, ${tally.breaches.size} not 401, ${bodies.size} distinct 401 bodies`, pass, seed: SEED + 1 });
    expect([...tally.breaches.keys()]).toEqual([]);
    expect(bodies.size).toBe(1);
  });
});
