/**
 * The demo service (tools/lib/demo-service.ts) holds only what the gate publishes: the consumer's
 * public key set, fetched from the gate's `GET /v1/consumers/{consumer}/signing-keys` (here a
 * stand-in serving it). A downstream given that set cannot forge a request the service accepts
 * (test/support/forgery.ts: every key it can make of it, then the gate's own key as the
 * control), and a rotation reaches the service through a refetch on an unknown `keyid`.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startDemoService } from "../../tools/lib/demo-service";
import { gateKey, keysFrom, signedHeaders, type ForgingKey } from "../support/forgery";
import { publishedKey } from "../support/identity-verifier";

const NOW = Date.parse("2027-01-15T08:00:00Z");
const SECRET = "demo-signing-secret-0123456789abcdef0123";
const TOKEN = "demo-bearer-token";

describe("the demo service, holding only what the gate publishes", () => {
  let service: { base: string; close(): Promise<void> } | undefined;
  let gateServer: Server | undefined;
  let served = "";
  let fetches = 0;
  let clock = NOW;
  afterEach(async () => {
    await service?.close();
    await new Promise((resolve) => (gateServer === undefined ? resolve(undefined) : gateServer.close(resolve)));
    [service, gateServer] = [undefined, undefined];
  });

  /** A stand-in for the gate's `GET /v1/consumers/demo/signing-keys`, answering `served`; then the demo service, pointed at it. */
  const start = async () => {
    fetches = 0;
    clock = NOW;
    gateServer = createServer((req, res) => {
      fetches += req.url === "/v1/consumers/demo/signing-keys" ? 1 : 0;
      res.writeHead(200, { "content-type": "application/json", connection: "close" }).end(served);
    });
    await new Promise<void>((resolve) => gateServer?.listen(0, "127.0.0.1", resolve));
    const address = gateServer.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    service = await startDemoService({
      keys: { demo: `http://127.0.0.1:${port}/v1/consumers/demo/signing-keys` },
      token: TOKEN,
      now: () => clock,
    });
  };
  const body = '{"customer":"acme"}';
  const acme = [
    200,
    {
      data: { customer: "acme", name: "Acme Corporation", tier: "gold", balance_cents: 125000 },
      resource_revision: null,
      observed_at: "2027-01-15T08:00:00Z",
    },
  ];
  const lookup = async (key: ForgingKey, subject: string, nonce: string) => {
    if (service === undefined) throw new Error("the demo service is not started");
    const url = `${service.base}/customers/lookup`;
    const statement = {
      consumer: "demo",
      subject_id: subject,
      roles: ["admin"],
      tool: "lookup_customer",
      call_id: nonce,
      operation_id: `op-${nonce}`,
    };
    const res = await fetch(url, {
      method: "POST",
      headers: signedHeaders(key, "POST", url, statement, body, Math.floor(clock / 1000), nonce),
      body,
    });
    return [res.status, await res.json()];
  };

  it("hole: a downstream given the published key cannot forge a request the demo service accepts", async () => {
    served = JSON.stringify({ keys: [publishedKey(SECRET, "demo")] });
    await start();
    const held = served; // all the forging downstream was given: the public members of a JWK, no "d"
    expect((JSON.parse(held) as { keys: object[] }).keys.map((k) => Object.keys(k))).toEqual([
      ["kty", "crv", "x", "kid", "use"],
    ]);
    const answers = [];
    for (const [i, key] of keysFrom(held).entries())
      answers.push([key.name, ...(await lookup(key, "user-2", `forged-${i}`))]);
    const ed = (what: string) => [`ed25519, seed = ${what}`, 401, { error: "bad signature" }];
    const mac = (what: string) => [`hmac-sha256, key = ${what}`, 401, { error: "unknown key" }];
    expect(answers).toEqual([
      ed("x"),
      mac("x"),
      ed("kid"),
      mac("kid"),
      ed("sha-256 of the JWK Set"),
      mac("sha-256 of the JWK Set"),
    ]);
    // The control: the forger's code with the gate's own key is accepted, so each refusal above was the key's.
    expect(await lookup(gateKey(SECRET, "demo", publishedKey(SECRET, "demo").kid), "user-2", "control")).toEqual(acme);
    expect(fetches).toBe(1);
  });

  it("fetches the key set again for an unknown keyid (a rotation), at most every 10 s", async () => {
    const rotated = "rotated-demo-secret-0123456789abcdef0123";
    const [current, next] = [publishedKey(SECRET, "demo"), publishedKey(rotated, "demo")];
    served = JSON.stringify({ keys: [current] });
    await start();
    expect(await lookup(gateKey(SECRET, "demo", current.kid), "user-1", "n-1")).toEqual(acme);
    served = JSON.stringify({ keys: [next, current] });
    expect(await lookup(gateKey(rotated, "demo", next.kid), "user-1", "n-2")).toEqual([401, { error: "unknown key" }]);
    clock += 10_000;
    expect(await lookup(gateKey(rotated, "demo", next.kid), "user-1", "n-3")).toEqual([
      200,
      { ...(acme[1] as object), observed_at: "2027-01-15T08:00:10Z" },
    ]);
    expect(await lookup(gateKey(SECRET, "demo", current.kid), "user-1", "n-4")).toEqual([
      200,
      { ...(acme[1] as object), observed_at: "2027-01-15T08:00:10Z" },
    ]);
    expect(fetches).toBe(2);
  });
});
