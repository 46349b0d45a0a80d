/**
 * The HTTP conventions (docs/http-api.md, "HTTP conventions"): the `Idempotency-Key` header,
 * CORS with a per-consumer allow-list, `405` with `Allow`, and cursor pages of the short lists.
 * Exact headers and bodies for each rule.
 */
import { env } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { noIdempotencyKeyHeader, parseIdempotencyKey } from "../../../src/worker/http/idempotency-key";
import { ADMIN_TOKEN, context, credential, gate, send } from "../../kit";

const A = "http-conv-a";
const B = "http-conv-b";
const PAGES = "http-conv-pages";
/** Never configured. */
const NONE = "http-conv-none";
const APP = "https://app.example";
const OTHER_APP = "https://b.example";

const problemOf = (code: string, status: number, title: string, detail: string) => ({
  type: `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
  title,
  status,
  code,
  detail,
});
const NOT_ALLOWED_ORIGIN = problemOf(
  "ORIGIN_REFUSED",
  403,
  "Origin or Host refused",
  "The Origin is not in this consumer's cors_origins.",
);
const ADMIN_ROUTE = problemOf(
  "ORIGIN_REFUSED",
  403,
  "Origin or Host refused",
  "This route takes the admin secret: it is never offered to pages on other origins.",
);
const BAD_KEY = (detail: string) =>
  problemOf("INVALID_IDEMPOTENCY_KEY", 400, "Idempotency-Key header is not valid", detail);
const MISMATCH = problemOf(
  "IDEMPOTENCY_KEY_MISMATCH",
  422,
  "Idempotency-Key header and body disagree",
  "The Idempotency-Key header and the body's context.idempotency_key name different keys: send one, or the same in both.",
);
const BAD_CURSOR = problemOf(
  "INVALID_CURSOR",
  400,
  "Cursor is not valid",
  "The cursor is not one this list answered; start again without it.",
);
const method405 = (allow: string) =>
  problemOf("METHOD_NOT_ALLOWED", 405, "Method not allowed", `This path answers ${allow} only (see Allow).`);

const CORS_HEADERS = [
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-max-age",
  "access-control-expose-headers",
  "vary",
] as const;
const ALLOW_HEADERS =
  "authorization, content-type, idempotency-key, mcp-session-id, mcp-protocol-version, last-event-id";
const EXPOSE_HEADERS = "retry-after, www-authenticate, mcp-session-id, location";

/** The CORS headers of an answer (null where absent). */
function corsOf(res: Response): Record<string, string | null> {
  return Object.fromEntries(CORS_HEADERS.map((name) => [name, res.headers.get(name)]));
}

const noCors = {
  "access-control-allow-origin": null,
  "access-control-allow-methods": null,
  "access-control-allow-headers": null,
  "access-control-max-age": null,
  "access-control-expose-headers": null,
};

async function answer(res: Response): Promise<{ status: number; cors: Record<string, string | null>; body: unknown }> {
  const text = await res.text();
  return { status: res.status, cors: corsOf(res), body: text === "" ? null : JSON.parse(text) };
}

function preflight(path: string, origin: string, method = "POST"): Promise<Response> {
  return gate(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type, idempotency-key",
    },
  });
}

/** base64url without padding, written here independently of the gate's encoder. */
function cursorOf(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

let agentA: string;
let agentB: string;

async function configure(
  consumer: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await send("PUT", `/v1/consumers/${consumer}`, ADMIN_TOKEN, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function refund(
  key: string | null,
  headers: Record<string, string> = {},
  token = agentA,
  consumer = A,
): Promise<Response> {
  return gate(`/v1/consumers/${consumer}/tool-calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "submit_refund", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
      context: context(`call-${crypto.randomUUID()}`, { key }),
    }),
  });
}

beforeAll(async () => {
  expect(
    (
      await configure(A, {
        tools: ["submit_refund", "get_order"],
        approver_subjects: ["rev-1"],
        cors_origins: [APP, "http://localhost:5173"],
      })
    ).status,
  ).toBe(200);
  expect(
    (await configure(B, { tools: ["submit_refund"], approver_subjects: ["rev-1"], cors_origins: [OTHER_APP] })).status,
  ).toBe(200);
  agentA = (await credential(A, "agent")).secret;
  agentB = (await credential(B, "agent")).secret;
});

describe("Idempotency-Key header", () => {
  it("parses a structured-field String, a bare token, escapes and parameters; refuses the rest", () => {
    const cases: Array<[string | null, unknown]> = [
      [null, null],
      ['"k-1"', "k-1"],
      ["k-1", "k-1"],
      ['  "k-1"  ', "k-1"],
      ['"a\\"b\\\\c"', 'a"b\\c'],
      ['"k,1"', "k,1"],
      ['"k-1";a=1;b;c="x"', "k-1"],
      ["550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-446655440000"],
      [`"${"k".repeat(255)}"`, "k".repeat(255)],
      [
        '"k-1", "k-2"',
        "INVALID_IDEMPOTENCY_KEY: Idempotency-Key was sent more than once (or as a list): send exactly one key.",
      ],
      [
        "k1, k2",
        "INVALID_IDEMPOTENCY_KEY: Idempotency-Key was sent more than once (or as a list): send exactly one key.",
      ],
      [
        '"k-1',
        'INVALID_IDEMPOTENCY_KEY: Idempotency-Key is not a structured-field String: printable ASCII between double quotes, with \\" and \\\\ the only escapes.',
      ],
      [
        '"k\\n"',
        'INVALID_IDEMPOTENCY_KEY: Idempotency-Key is not a structured-field String: printable ASCII between double quotes, with \\" and \\\\ the only escapes.',
      ],
      [
        '"ké"',
        'INVALID_IDEMPOTENCY_KEY: Idempotency-Key is not a structured-field String: printable ASCII between double quotes, with \\" and \\\\ the only escapes.',
      ],
      [
        "(k)",
        'INVALID_IDEMPOTENCY_KEY: Idempotency-Key is neither a structured-field String ("k-1") nor a token (k-1).',
      ],
      [
        "k 1",
        "INVALID_IDEMPOTENCY_KEY: Idempotency-Key has characters after its key that are not structured-field parameters.",
      ],
      [
        '"k-1";A=1',
        "INVALID_IDEMPOTENCY_KEY: Idempotency-Key has characters after its key that are not structured-field parameters.",
      ],
      ['""', "INVALID_IDEMPOTENCY_KEY: An idempotency key has 1..255 characters."],
      [`"${"k".repeat(256)}"`, "INVALID_IDEMPOTENCY_KEY: An idempotency key has 1..255 characters."],
    ];
    const parsed = cases.map(([value]) => {
      const out = parseIdempotencyKey(value);
      return out.ok ? out.value : `${out.error.code}: ${out.error.detail}`;
    });
    expect(parsed).toEqual(cases.map(([, expected]) => expected));
  });

  it("fills context.idempotency_key from the header: a write without a key in the body is no longer refused", async () => {
    const bare = (await (await refund(null)).json()) as { model_result: { error: { code: string } } };
    expect(bare.model_result.error.code).toBe("IDEMPOTENCY_KEY_REQUIRED");
    for (const [header, key] of [
      ['"hk-1"', "hk-1"],
      ["hk-2", "hk-2"],
    ] as const) {
      const res = await refund(null, { "idempotency-key": header });
      const body = (await res.json()) as { model_result: { error: { code: string } }; approval_id: string };
      expect([res.status, body.model_result.error.code]).toEqual([200, "APPROVAL_REQUIRED"]);
      const approver = (await credential(A, "approver", "rev-1")).secret;
      const listed = (await (await send("GET", `/v1/consumers/${A}/approvals?state=pending`, approver)).json()) as {
        approvals: Array<{ approval_id: string; idempotency_key: string | null }>;
      };
      expect(listed.approvals.find((a) => a.approval_id === body.approval_id)?.idempotency_key).toBe(key);
    }
  });

  it("accepts the same key in both; refuses different keys (422), a malformed or repeated header (400)", async () => {
    const same = await refund("both-1", { "idempotency-key": '"both-1"' });
    expect([
      same.status,
      ((await same.json()) as { model_result: { error: { code: string } } }).model_result.error.code,
    ]).toEqual([200, "APPROVAL_REQUIRED"]);
    const differ = await refund("body-1", { "idempotency-key": '"header-1"' });
    expect([differ.status, differ.headers.get("content-type"), await differ.json()]).toEqual([
      422,
      "application/problem+json",
      MISMATCH,
    ]);
    const malformed = await refund("body-1", { "idempotency-key": '"unterminated' });
    expect([malformed.status, await malformed.json()]).toEqual([
      400,
      BAD_KEY(
        'Idempotency-Key is not a structured-field String: printable ASCII between double quotes, with \\" and \\\\ the only escapes.',
      ),
    ]);
    const headers = new Headers([
      ["authorization", `Bearer ${agentA}`],
      ["content-type", "application/json"],
      ["idempotency-key", "k-1"],
      ["idempotency-key", "k-2"],
    ]);
    const repeated = await gate(`/v1/consumers/${A}/tool-calls`, { method: "POST", headers, body: "{}" });
    expect([repeated.status, await repeated.json()]).toEqual([
      400,
      BAD_KEY("Idempotency-Key was sent more than once (or as a list): send exactly one key."),
    ]);
    // The status route reads it the same way.
    const status = await gate(`/v1/consumers/${A}/tool-calls/status`, { method: "POST", headers, body: "{}" });
    expect([status.status, await status.json()]).toEqual([
      400,
      BAD_KEY("Idempotency-Key was sent more than once (or as a list): send exactly one key."),
    ]);
  });

  it("checks the credential first: a malformed header without one is the one 401", async () => {
    const res = await gate(`/v1/consumers/${A}/tool-calls`, {
      method: "POST",
      headers: { "idempotency-key": "(", "content-type": "application/json" },
      body: "{}",
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("is refused, never ignored, on a route whose body keys each call (the batch route's middleware)", async () => {
    const app = new Hono().post("/batch", noIdempotencyKeyHeader(), (c) => c.text("ran"));
    const outcomes: unknown[] = [];
    for (const header of [null, '"k-1"', "k1, k2", "("]) {
      const res = await app.request("/batch", {
        method: "POST",
        headers: header === null ? {} : { "idempotency-key": header },
      });
      outcomes.push([
        res.status,
        res.status === 200 ? await res.text() : ((await res.json()) as { detail: string }).detail,
      ]);
    }
    expect(outcomes).toEqual([
      [200, "ran"],
      [400, "This route takes each call's key in the body (calls[].idempotency_key), not the Idempotency-Key header."],
      [400, "Idempotency-Key was sent more than once (or as a list): send exactly one key."],
      [400, 'Idempotency-Key is neither a structured-field String ("k-1") nor a token (k-1).'],
    ]);
  });

  it("is documented as a header parameter of both tool-call routes, with its problems", async () => {
    type Answer = { $ref: string };
    const doc = (await (await gate("/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<string, { parameters: Array<{ name: string; in: string }>; responses: Record<string, Answer> }>
      >;
      components: { responses: Record<string, { description: string }> };
    };
    const described = (answer: Answer | undefined) =>
      doc.components.responses[answer?.$ref.replace("#/components/responses/", "") ?? ""]?.description;
    for (const path of ["/v1/consumers/{consumer}/tool-calls", "/v1/consumers/{consumer}/tool-calls/status"]) {
      const op = doc.paths[path]?.post;
      expect(op?.parameters.filter((p) => p.in === "header").map((p) => p.name)).toEqual(["Idempotency-Key"]);
      expect(described(op?.responses["422"])).toBe("Problem: IDEMPOTENCY_KEY_MISMATCH");
      expect(described(op?.responses["400"])?.includes("INVALID_IDEMPOTENCY_KEY")).toBe(true);
    }
  });
});

describe("CORS", () => {
  it("stores the allow-list (sorted, present only when set) and shows it in the admin's view", async () => {
    const put = await configure(A, {
      tools: ["submit_refund", "get_order"],
      approver_subjects: ["rev-1"],
      cors_origins: ["http://localhost:5173", APP, APP],
    });
    // Code-point order: "http:" sorts before "https:".
    expect([put.status, put.body.cors_origins, put.body.created]).toEqual([200, ["http://localhost:5173", APP], false]);
    const shown = (await (await send("GET", `/v1/consumers/${A}`, ADMIN_TOKEN)).json()) as Record<string, unknown>;
    expect(shown.cors_origins).toEqual(["http://localhost:5173", APP]);
    const none = await configure(PAGES, { tools: [], approver_subjects: [] });
    expect("cors_origins" in none.body).toBe(false);
  });

  it("refuses an origin that is not exact, not https (or loopback http), or more than 32", async () => {
    for (const origin of [
      "https://app.example/",
      "https://APP.example",
      "http://app.example",
      "https://app.example/path",
      "*",
      "null",
      "https://app.example:443",
      "ftp://app.example",
    ]) {
      const res = await send("PUT", `/v1/consumers/${PAGES}`, ADMIN_TOKEN, {
        tools: [],
        approver_subjects: [],
        cors_origins: [origin],
      });
      expect([origin, res.status, ((await res.json()) as { detail: string }).detail]).toEqual([
        origin,
        400,
        "$.cors_origins.0: an exact origin as browsers send it (scheme://host[:port], lowercase, no path or trailing slash): https, or http on a loopback host",
      ]);
    }
    const many = Array.from({ length: 33 }, (_, i) => `https://app${i}.example`);
    const res = await send("PUT", `/v1/consumers/${PAGES}`, ADMIN_TOKEN, {
      tools: [],
      approver_subjects: [],
      cors_origins: many,
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([400, "INVALID_REQUEST"]);
    expect(
      (
        await configure(PAGES, {
          tools: [],
          approver_subjects: [],
          cors_origins: ["http://127.0.0.1:8080", "http://[::1]:3000", "http://app.localhost"],
        })
      ).status,
    ).toBe(200);
  });

  it("answers an allowed origin's preflight with exactly its origin, methods, headers and max age", async () => {
    const res = await preflight(`/v1/consumers/${A}/tool-calls`, APP);
    expect(await answer(res)).toEqual({
      status: 204,
      cors: {
        ...noCors,
        "access-control-allow-origin": APP,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": "600",
        vary: "Origin",
      },
      body: null,
    });
    const approvals = await preflight(
      `/v1/consumers/${A}/approvals/apr_${"0".repeat(32)}`,
      "http://localhost:5173",
      "GET",
    );
    expect([
      approvals.status,
      approvals.headers.get("access-control-allow-origin"),
      approvals.headers.get("access-control-allow-methods"),
    ]).toEqual([204, "http://localhost:5173", "GET, POST"]);
    // The tool list is an agent's route too; defining a tool is the admin's only.
    const tools = await preflight(`/v1/consumers/${A}/tools`, APP, "GET");
    expect([tools.status, tools.headers.get("access-control-allow-methods")]).toEqual([204, "GET"]);
    const mcp = await preflight(`/v1/consumers/${A}/mcp`, APP);
    expect([mcp.status, mcp.headers.get("access-control-allow-methods")]).toEqual([204, "GET, POST, DELETE"]);
  });

  it("refuses another consumer's origin exactly as a never-allowed origin and a consumer that does not exist", async () => {
    const onB = await answer(await preflight(`/v1/consumers/${B}/tool-calls`, APP));
    const never = await answer(await preflight(`/v1/consumers/${B}/tool-calls`, "https://never.example"));
    const missing = await answer(await preflight(`/v1/consumers/${NONE}/tool-calls`, APP));
    const refusal = { status: 403, cors: { ...noCors, vary: "Origin" }, body: NOT_ALLOWED_ORIGIN };
    expect([onB, never, missing]).toEqual([refusal, refusal, refusal]);
    // B's own origin on B.
    expect(
      (await preflight(`/v1/consumers/${B}/tool-calls`, OTHER_APP)).headers.get("access-control-allow-origin"),
    ).toBe(OTHER_APP);
  });

  it("reads no object for a consumer nobody configured: a preflight creates no Durable Object storage", async () => {
    const before = (await listDurableObjectIds(env.CONSUMER)).length;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const consumer = `http-conv-unknown-${crypto.randomUUID().slice(0, 8)}`;
      statuses.push((await preflight(`/v1/consumers/${consumer}/tool-calls`, APP)).status);
      statuses.push(
        (await gate(`/v1/consumers/${consumer}/tool-calls`, { method: "POST", headers: { origin: APP } })).status,
      );
    }
    expect(statuses).toEqual(Array.from({ length: 10 }, () => [403, 401]).flat());
    expect((await listDurableObjectIds(env.CONSUMER)).length).toBe(before);
  });

  it("never offers an admin-only route", async () => {
    for (const [path, method] of [
      [`/v1/consumers/${A}`, "PUT"],
      [`/v1/consumers/${A}/tools/t_1`, "PUT"],
      [`/v1/consumers/${A}/credentials`, "POST"],
      ["/v1/consumers", "GET"],
    ] as const) {
      expect([path, await answer(await preflight(path, APP, method))]).toEqual([
        path,
        { status: 403, cors: { ...noCors, vary: "Origin" }, body: ADMIN_ROUTE },
      ]);
    }
    const read = await gate(`/v1/consumers/${A}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, origin: APP } });
    expect([read.status, corsOf(read)]).toEqual([200, { ...noCors, vary: null }]);
  });

  it("adds the origin, Vary and the exposed headers to the answers of an allowed origin only", async () => {
    const allowed = await refund("cors-1", { origin: APP });
    expect([allowed.status, corsOf(allowed)]).toEqual([
      200,
      {
        ...noCors,
        "access-control-allow-origin": APP,
        "access-control-expose-headers": EXPOSE_HEADERS,
        vary: "Origin",
      },
    ]);
    // A refusal is readable by the page too (its WWW-Authenticate exposed).
    const unauthenticated = await gate(`/v1/consumers/${A}/tool-calls`, { method: "POST", headers: { origin: APP } });
    expect([unauthenticated.status, unauthenticated.headers.get("www-authenticate"), corsOf(unauthenticated)]).toEqual([
      401,
      'Bearer realm="toolgate"',
      {
        ...noCors,
        "access-control-allow-origin": APP,
        "access-control-expose-headers": EXPOSE_HEADERS,
        vary: "Origin",
      },
    ]);
    const foreign = await refund("cors-2", { origin: APP }, agentB, B);
    const never = await refund("cors-3", { origin: "https://never.example" }, agentB, B);
    const without = await refund("cors-4", {}, agentB, B);
    expect([foreign.status, corsOf(foreign), never.status, corsOf(never), without.status, corsOf(without)]).toEqual([
      200,
      { ...noCors, vary: "Origin" },
      200,
      { ...noCors, vary: "Origin" },
      200,
      { ...noCors, vary: "Origin" },
    ]);
  });

  it("takes a changed allow-list at once in the isolate that stored it", async () => {
    expect((await preflight(`/v1/consumers/${B}/tool-calls`, OTHER_APP)).status).toBe(204);
    await configure(B, { tools: ["submit_refund"], approver_subjects: ["rev-1"] });
    expect((await preflight(`/v1/consumers/${B}/tool-calls`, OTHER_APP)).status).toBe(403);
    await configure(B, { tools: ["submit_refund"], approver_subjects: ["rev-1"], cors_origins: [OTHER_APP] });
    expect((await preflight(`/v1/consumers/${B}/tool-calls`, OTHER_APP)).status).toBe(204);
  });

  it("answers * for the public documents, and nothing for the console or an unknown path", async () => {
    const doc = await preflight("/v1/openapi.json", APP, "GET");
    expect(await answer(doc)).toEqual({
      status: 204,
      cors: {
        ...noCors,
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": "600",
        vary: null,
      },
      body: null,
    });
    for (const path of ["/healthz", "/v1/openapi.json"]) {
      const res = await gate(path);
      await res.text();
      expect([path, res.headers.get("access-control-allow-origin")]).toEqual([path, "*"]);
    }
    const console = await preflight("/console", APP, "GET");
    expect([console.status, console.headers.get("allow"), corsOf(console)]).toEqual([
      405,
      "GET, HEAD",
      { ...noCors, vary: null },
    ]);
    const unknown = await answer(await preflight("/v1/nothing-here", APP));
    expect([unknown.status, unknown.cors]).toEqual([404, { ...noCors, vary: null }]);
  });
});

describe("405 Method Not Allowed", () => {
  it("answers a wrong method on a real path with Allow, before any credential or consumer is read", async () => {
    const cases: Array<[string, string, string]> = [
      ["DELETE", `/v1/consumers/${A}/tool-calls`, "POST"],
      ["GET", `/v1/consumers/${NONE}/tool-calls`, "POST"],
      ["OPTIONS", `/v1/consumers/${A}/tool-calls`, "POST"],
      ["POST", `/v1/consumers/${A}`, "GET, HEAD, PUT, PATCH"],
      ["POST", "/healthz", "GET, HEAD"],
      ["PUT", `/v1/consumers/${A}/secrets`, "GET, HEAD"],
      ["GET", `/v1/consumers/${A}/webhooks/deliveries/dlv_x/redeliver`, "POST"],
      ["DELETE", `/v1/consumers/${A}/approvals/apr_x`, "GET, HEAD, POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await gate(path, { method, headers: { authorization: "Bearer nothing" } });
      expect([
        method,
        path,
        res.status,
        res.headers.get("allow"),
        res.headers.get("content-type"),
        await res.json(),
      ]).toEqual([method, path, 405, allow, "application/problem+json", method405(allow)]);
    }
  });

  it("keeps 404 for a path nothing routes", async () => {
    const res = await gate("/v1/consumers/x/nothing", { method: "DELETE" });
    expect([res.status, res.headers.get("allow"), await res.json()]).toEqual([
      404,
      null,
      problemOf("NOT_FOUND", 404, "Not found", "No such route."),
    ]);
  });
});

describe("cursor pages of the short lists", () => {
  beforeAll(async () => {
    expect((await configure(PAGES, { tools: [], approver_subjects: [], limits: { page_items: 2 } })).status).toBe(200);
    for (const name of ["s_c", "s_a", "s_b"])
      expect((await send("PUT", `/v1/consumers/${PAGES}/secrets/${name}`, ADMIN_TOKEN, { value: "v" })).status).toBe(
        204,
      );
  });

  async function get(path: string, token = ADMIN_TOKEN): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await send("GET", `/v1/consumers/${PAGES}${path}`, token);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("pages the secrets by name", async () => {
    const first = await get("/secrets");
    expect(first).toEqual({ status: 200, body: { secrets: ["s_a", "s_b"], next_cursor: cursorOf("secrets:v1:s_b") } });
    expect(await get(`/secrets?cursor=${first.body.next_cursor}`)).toEqual({
      status: 200,
      body: { secrets: ["s_c"], next_cursor: null },
    });
    // An item deleted between two pages moves nothing: the page starts after the cursor's name.
    expect(await get(`/secrets?cursor=${cursorOf("secrets:v1:s_aa")}`)).toEqual({
      status: 200,
      body: { secrets: ["s_b", "s_c"], next_cursor: null },
    });
    for (const bad of [cursorOf("webhooks:v1:s_b"), "AAAA", "x".repeat(401), "%00"])
      expect(await get(`/secrets?cursor=${bad}`)).toEqual({ status: 400, body: BAD_CURSOR });
  });

  it("pages the webhook endpoints oldest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await send("POST", `/v1/consumers/${PAGES}/webhooks`, ADMIN_TOKEN, {
        url: `https://hooks.test/pages-${i}`,
      });
      ids.push(((await made.json()) as { endpoint_id: string }).endpoint_id);
    }
    const first = await get("/webhooks");
    const next = first.body.next_cursor as string;
    expect([(first.body.endpoints as Array<{ endpoint_id: string }>).map((e) => e.endpoint_id), typeof next]).toEqual([
      ids.slice(0, 2),
      "string",
    ]);
    const second = await get(`/webhooks?cursor=${next}`);
    expect([
      (second.body.endpoints as Array<{ endpoint_id: string }>).map((e) => e.endpoint_id),
      second.body.next_cursor,
    ]).toEqual([ids.slice(2), null]);
    expect(await get(`/webhooks?cursor=${cursorOf("secrets:v1:s_b")}`)).toEqual({ status: 400, body: BAD_CURSOR });
  });

  it("pages the tools: the admin's defined tools (enabled whole), a model's declarations", async () => {
    await configure(PAGES, {
      tools: ["get_order", "lookup_refund", "submit_refund"],
      approver_subjects: [],
      limits: { page_items: 2 },
    });
    const first = await get("/tools");
    expect(first).toEqual({
      status: 200,
      body: { enabled: ["get_order", "lookup_refund", "submit_refund"], defined: [], next_cursor: null },
    });
    const declared = await get("/tools?format=anthropic");
    expect([(declared.body.tools as Array<{ name: string }>).map((t) => t.name), declared.body.next_cursor]).toEqual([
      ["get_order", "lookup_refund"],
      cursorOf("tools:v1:lookup_refund"),
    ]);
    const rest = await get(`/tools?format=anthropic&cursor=${declared.body.next_cursor}`);
    expect([
      rest.body.format,
      (rest.body.tools as Array<{ name: string }>).map((t) => t.name),
      rest.body.next_cursor,
    ]).toEqual(["anthropic", ["submit_refund"], null]);
    const agent = (await credential(PAGES, "agent")).secret;
    const plain = await get("/tools", agent);
    expect([
      plain.body.format,
      (plain.body.tools as Array<{ name: string }>).map((t) => t.name),
      plain.body.next_cursor,
    ]).toEqual(["json-schema", ["get_order", "lookup_refund"], cursorOf("tools:v1:lookup_refund")]);
    expect(await get(`/tools?cursor=${cursorOf("secrets:v1:a")}`, agent)).toEqual({ status: 400, body: BAD_CURSOR });
  });

  it("pages the MCP servers by name", async () => {
    for (const name of ["srv_b", "srv_a", "srv_c"]) {
      const res = await send("POST", `/v1/consumers/${PAGES}/mcp-servers`, ADMIN_TOKEN, {
        name,
        url: "https://mcp.test/json/mcp",
        prefix: `${name}_`,
      });
      expect([name, res.status]).toEqual([name, 200]);
    }
    const first = await get("/mcp-servers");
    expect([(first.body.servers as Array<{ name: string }>).map((s) => s.name), first.body.next_cursor]).toEqual([
      ["srv_a", "srv_b"],
      cursorOf("mcp-servers:v1:srv_b"),
    ]);
    const second = await get(`/mcp-servers?cursor=${first.body.next_cursor}`);
    expect([(second.body.servers as Array<{ name: string }>).map((s) => s.name), second.body.next_cursor]).toEqual([
      ["srv_c"],
      null,
    ]);
  });

  it("documents the cursor of every list route", async () => {
    const doc = (await (await gate("/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    };
    const lists = [
      "/tools",
      "/secrets",
      "/webhooks",
      "/mcp-servers",
      "/credentials",
      "/approvals",
      "/webhooks/deliveries",
    ];
    expect(
      lists.map((l) =>
        doc.paths[`/v1/consumers/{consumer}${l}`]?.get?.parameters?.some(
          (p) => p.in === "query" && p.name === "cursor",
        ),
      ),
    ).toEqual(lists.map(() => true));
  });
});
