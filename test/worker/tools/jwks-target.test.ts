/**
 * The issuer's `jwks_uri` is a URL the gate fetches, so it passes the target rule: refused at
 * configuration time (INVALID_REQUEST with the field's path), and a stored one that breaks the
 * rule (stored before it) is never fetched: the token is rejected, nothing leaves the gate.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN, context, credential, send, wipe } from "../../kit";

const C = "jwks-target-a";
const BASE = `/v1/consumers/${C}`;
/** What the refusals add where the Worker admits loopback targets (`npm start`; a local .dev.vars may bring it here). */
const UNDER_NPM_START =
  Reflect.get(env, "TOOLGATE_ALLOW_LOOPBACK_TARGETS") === "1" ? " (only loopback is allowed under npm start)" : "";
const ISSUER = { issuer: "https://login.example.test/", audience: "jwks-target" };
/** A token whose header names a key id: verifying it needs the issuer's keys. */
const TOKEN = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEifQ.c2ln";

async function configure(jwksUri: string): Promise<[number, unknown, unknown, unknown]> {
  const res = await send("PUT", BASE, ADMIN_TOKEN, {
    tools: ["get_order"],
    approver_subjects: [],
    principal_tokens: { ...ISSUER, jwks_uri: jwksUri },
  });
  const answer = (await res.json()) as Record<string, unknown>;
  return [res.status, answer.code, answer.detail, answer.path];
}

beforeEach(async () => {
  await wipe(C);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("jwks_uri at configuration time", () => {
  it("refuses a private, loopback or link-local jwks_uri with INVALID_REQUEST at /principal_tokens/jwks_uri", async () => {
    expect(await configure("https://169.254.169.254/latest/meta-data/jwks")).toEqual([
      400,
      "INVALID_REQUEST",
      `a jwks_uri may not name a private, loopback or link-local address: 169.254.169.254 is link-local (169.254.0.0/16)${UNDER_NPM_START}`,
      "/principal_tokens/jwks_uri",
    ]);
    expect(await configure("https://[::ffff:0:a9fe:a9fe]/jwks")).toEqual([
      400,
      "INVALID_REQUEST",
      `a jwks_uri may not name a private, loopback or link-local address: [::ffff:0:a9fe:a9fe] is IPv4-translated link-local (169.254.0.0/16)${UNDER_NPM_START}`,
      "/principal_tokens/jwks_uri",
    ]);
    expect(await configure("https://0xa000001/jwks")).toEqual([
      400,
      "INVALID_REQUEST",
      `a jwks_uri may not name a private, loopback or link-local address: 10.0.0.1 is private (10.0.0.0/8)${UNDER_NPM_START}`,
      "/principal_tokens/jwks_uri",
    ]);
    // Nothing was stored: the consumer does not exist.
    expect((await send("GET", BASE, ADMIN_TOKEN)).status).toBe(404);
  });

  it("accepts a public jwks_uri", async () => {
    expect((await configure("https://login.example.test/.well-known/jwks.json"))[0]).toBe(200);
  });
});

describe("jwks_uri at call time", () => {
  it("never fetches a stored jwks_uri that breaks the rule: the token is rejected and nothing is sent", async () => {
    expect((await configure("https://login.example.test/jwks.json"))[0]).toBe(200);
    const agent = (await credential(C, "agent", undefined, { principal: "token" })).secret;
    // A configuration stored before the rule: the row names the metadata address; the object restarts and loads it.
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(C));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE consumer SET principal_tokens = ? WHERE id = 1",
        JSON.stringify({ ...ISSUER, jwks_uri: "https://169.254.169.254/latest/meta-data/jwks" }),
      );
    });
    await runInDurableObject(stub, (_instance, state) => state.abort("reload the stored configuration")).catch(
      () => undefined,
    );
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      fetched.push(input instanceof Request ? input.url : String(input));
      return new Response('{"keys":[]}', { status: 404 });
    });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const res = await send("POST", `${BASE}/tool-calls`, agent, {
      proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      context: context("call-1"),
      principal_token: TOKEN,
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect([res.status, body.code, body.detail]).toEqual([
      403,
      "PRINCIPAL_TOKEN_REJECTED",
      "The issuer's keys could not be fetched.",
    ]);
    // The test Worker also exports traces (to otlp.test); no other request left the gate.
    expect(fetched.filter((url) => !url.startsWith("https://otlp.test/"))).toEqual([]);
  });
});
