/**
 * A deployment that lacks a required secret says so: `GET /healthz` names the missing ones (never
 * a value), and creating a credential without the tag key answers `503 GATE_MISCONFIGURED` naming
 * it instead of a bare `500 INTERNAL`. The Worker runs here with the test bindings minus the secret.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/worker/index";
import { missingSecrets } from "../../../src/worker/required-secrets";
import { ADMIN_TOKEN, createConsumer, send } from "../../kit";

const C = "missing-secrets";

/** One request to a Worker whose bindings are the test's with `changed` over them. */
function fetchWith(changed: Record<string, string>, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(
    worker.fetch(new Request(`http://gate${path}`, init), { ...env, ...changed }, createExecutionContext()),
  );
}

const mint = (changed: Record<string, string>) =>
  fetchWith(changed, `/v1/consumers/${C}/credentials`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "agent" }),
  });

const DETAIL =
  "The Worker secret TOOLGATE_TOKEN_KEY is unset or shorter than 32 characters, so no credential can be issued; the operator sets it (wrangler secret put TOOLGATE_TOKEN_KEY, or .dev.vars locally).";

describe("a deployment without a required secret", () => {
  it("missingSecrets: the required ones unset or too short, by name", () => {
    const key = "k".repeat(32);
    const admin = "a".repeat(16);
    expect([
      missingSecrets({ TOOLGATE_ADMIN_TOKEN: admin, TOOLGATE_TOKEN_KEY: key }),
      missingSecrets({ TOOLGATE_ADMIN_TOKEN: admin }),
      missingSecrets({ TOOLGATE_ADMIN_TOKEN: admin, TOOLGATE_TOKEN_KEY: key.slice(1) }),
      missingSecrets({ TOOLGATE_ADMIN_TOKEN: admin.slice(1), TOOLGATE_TOKEN_KEY: key }),
      missingSecrets({}),
    ]).toEqual([
      [],
      ["TOOLGATE_TOKEN_KEY"],
      ["TOOLGATE_TOKEN_KEY"],
      ["TOOLGATE_ADMIN_TOKEN"],
      ["TOOLGATE_ADMIN_TOKEN", "TOOLGATE_TOKEN_KEY"],
    ]);
  });

  it("GET /healthz names the missing secrets, never a value; a complete one answers as before", async () => {
    const answers = [];
    const changes: Record<string, string>[] = [
      {},
      { TOOLGATE_TOKEN_KEY: "" },
      { TOOLGATE_TOKEN_KEY: "short", TOOLGATE_ADMIN_TOKEN: "" },
    ];
    for (const changed of changes) {
      const res = await fetchWith(changed, "/healthz");
      answers.push([res.status, await res.json()]);
    }
    expect(answers).toEqual([
      [200, { ok: true }],
      [200, { ok: true, missing_secrets: ["TOOLGATE_TOKEN_KEY"] }],
      [200, { ok: true, missing_secrets: ["TOOLGATE_ADMIN_TOKEN", "TOOLGATE_TOKEN_KEY"] }],
    ]);
  });

  it("answers credential creation with 503 GATE_MISCONFIGURED naming TOOLGATE_TOKEN_KEY, not 500", async () => {
    await createConsumer(C, [], []);
    const problems = [];
    for (const changed of [{ TOOLGATE_TOKEN_KEY: "" }, { TOOLGATE_TOKEN_KEY: "k".repeat(31) }]) {
      const res = await mint(changed);
      problems.push([res.status, res.headers.get("content-type"), await res.json()]);
    }
    const expected = [
      503,
      "application/problem+json",
      {
        type: "https://toolgate.dev/problems/gate-misconfigured",
        title: "The gate is missing a required secret",
        status: 503,
        code: "GATE_MISCONFIGURED",
        detail: DETAIL,
      },
    ];
    expect(problems).toEqual([expected, expected]);
    // The admin secret is checked first: without it the answer stays the one 401.
    expect(
      (await fetchWith({ TOOLGATE_TOKEN_KEY: "" }, `/v1/consumers/${C}/credentials`, { method: "POST" })).status,
    ).toBe(401);
    // With the key set, the same request mints as before.
    expect((await mint({})).status).toBe(201);
    expect((await send("POST", `/v1/consumers/${C}/credentials`, ADMIN_TOKEN, { kind: "agent" })).status).toBe(201);
  });
});
