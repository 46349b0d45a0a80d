/**
 * docs/tools.md cannot drift: its complete example is the pair of tools `npm start` defines
 * (tools/lib/demo-service.ts) and builds under the gate's production rules; its minimal Node
 * downstream, run as written (with the verifier of docs/http-tools.md), answers requests the
 * gate's own signer signs with the protocol's exact bodies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoTools } from "../../tools/lib/demo-service";
import { freePort } from "../../tools/lib/wrangler-dev";
import { readJson } from "../../src/core/json";
import { ToolDefinition } from "../../src/contracts/tool-definition";
import { buildTool } from "../../src/worker/features/tools/build";
import { loadPolicyLanguage } from "../../src/worker/kernel/policy-language";
import { downstreamSigner, encodeIdentity } from "../../src/worker/targets/http/signature";
import { publishedKey } from "../support/identity-verifier";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOOLS_DOC = readFileSync(join(ROOT, "docs", "tools.md"), "utf8");
const HTTP_DOC = readFileSync(join(ROOT, "docs", "http-tools.md"), "utf8");

/** The first fenced block of `lang` after `marker` in `text`. */
function blockAfter(text: string, marker: string, lang: string): string {
  const start = text.indexOf(marker);
  const block = start < 0 ? null : new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(text.slice(start));
  if (block === null || block[1] === undefined) throw new Error(`no ${lang} block after ${marker}`);
  return block[1];
}

describe("docs/tools.md's complete example", () => {
  it("is npm start's two tools, and builds with https targets only", async () => {
    await loadPolicyLanguage();
    const names = [...TOOLS_DOC.matchAll(/<!-- definition: (\w+) -->/g)].map((m) => m[1] as string);
    const documented = Object.fromEntries(
      names.map((name) => [name, JSON.parse(blockAfter(TOOLS_DOC, `<!-- definition: ${name} -->`, "json"))]),
    );
    expect(documented).toEqual(demoTools("https://billing.example.com", "billing_token"));
    const built = names.map((name) => {
      const parsed = readJson(JSON.stringify(documented[name]), {});
      if (!parsed.ok) throw new Error("unreadable");
      const result = buildTool(name, ToolDefinition.parse(parsed.value), { allowLoopback: false });
      return result.ok ? Object.keys(result.value.revisions) : result.error;
    });
    expect([names, built]).toEqual([
      ["lookup_customer", "create_invoice"],
      [
        ["input", "output", "policy", "effect", "handler"],
        ["input", "output", "policy", "effect", "handler"],
      ],
    ]);
  });
});

const SECRET = "doc-example-signing-secret-0123456789abcd";
const TOKEN = "doc-example-token";
let dir = "";
let base = "";
let child: ChildProcess | undefined;

/** A request as the gate sends it for the consumer `acme` (its signer, its statement). */
async function gate(
  method: string,
  path: string,
  statusRef: string,
  body = "",
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
) {
  const url = `${base}${path}`;
  const signer = downstreamSigner(SECRET);
  if (signer === undefined) throw new Error("no signer");
  const identity = encodeIdentity({
    consumer: "acme",
    subject_id: "user-1",
    roles: ["support"],
    tool: "create_invoice",
    call_id: "call-1",
    operation_id: "op-1",
    status_ref: statusRef,
  });
  const write = method === "POST" && path === "/invoices";
  const all = {
    ...headers,
    ...(write ? { "content-type": "application/json", "idempotency-key": `"${statusRef}"` } : {}),
    ...(await signer.sign({ method, url, body }, identity)),
  };
  const res = await fetch(url, { method, headers: all, ...(body === "" ? {} : { body }) });
  return [res.status, await res.json()];
}

describe("docs/tools.md's minimal Node downstream", () => {
  beforeAll(async () => {
    mkdirSync(join(ROOT, ".toolgate"), { recursive: true });
    // Inside the repository, so `http-message-signatures` resolves from its node_modules.
    dir = mkdtempSync(join(ROOT, ".toolgate", "doc-example-"));
    writeFileSync(join(dir, "package.json"), '{"type":"module"}');
    writeFileSync(join(dir, "verify-toolgate.js"), blockAfter(HTTP_DOC, "## Verification in Node", "js"));
    writeFileSync(join(dir, "server.js"), blockAfter(TOOLS_DOC, "<!-- downstream example -->", "js"));
    const port = (await freePort()) as number;
    base = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH,
      PORT: String(port),
      BASE_URL: base,
      BILLING_TOKEN: TOKEN,
      ACME_TOOLGATE_KEYS: JSON.stringify({ keys: [publishedKey(SECRET, "acme")] }),
    };
    child = spawn(process.execPath, ["server.js"], { cwd: dir, env, stdio: "ignore" });
    for (let i = 0; i < 100; i++) {
      if (
        await fetch(base).then(
          () => true,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the documented downstream did not start");
  }, 20_000);

  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes once per key, answers status and fence, and refuses what it must", async () => {
    const created = await gate("POST", "/invoices", "status_k1", '{"amount":250,"customer":"acme"}');
    const result = created[1] as { observed_at: string };
    expect(result.observed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const expected = {
      data: { invoice_id: "INV-1", customer: "acme", amount: 250 },
      resource_revision: null,
      observed_at: result.observed_at,
      receipt_id: "rcpt-INV-1",
    };
    expect(created).toEqual([200, expected]);
    expect(await gate("POST", "/invoices", "status_k1", '{"amount":250,"customer":"acme"}')).toEqual([200, expected]);
    expect(await gate("GET", "/invoices/status/status_k1", "status_k1")).toEqual([
      200,
      { state: "committed", result: expected },
    ]);
    expect(await gate("GET", "/invoices/status/status_k2", "status_k2")).toEqual([200, { state: "not_found" }]);
    expect(await gate("GET", "/invoices/status/status_k2", "status_k1")).toEqual([404, { error: "no such endpoint" }]);
    expect(await gate("POST", "/invoices/status/status_k2/fence", "status_k2")).toEqual([200, { state: "fenced" }]);
    expect(await gate("GET", "/invoices/status/status_k2", "status_k2")).toEqual([200, { state: "fenced" }]);
    expect(await gate("POST", "/invoices", "status_k2", '{"amount":5,"customer":"acme"}')).toEqual([
      409,
      { error: "this key is fenced" },
    ]);
    expect(await gate("POST", "/invoices/status/status_k1/fence", "status_k1")).toEqual([
      200,
      { state: "committed", result: expected },
    ]);
    expect(await gate("POST", "/invoices", "status_k3", '{"amount":5,"customer":"acme"}', {})).toEqual([
      403,
      { error: "bad token" },
    ]);
    expect(
      await fetch(`${base}/invoices`, { method: "POST", body: "{}" }).then(async (r) => [r.status, await r.json()]),
    ).toEqual([401, { error: "unauthorized" }]);
  });
});
