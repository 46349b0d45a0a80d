/**
 * The OpenAPI document against the gate's real answers: every answer of the operations driven
 * here, through the Worker as a client sends them, must be one the committed document
 * (assets/openapi.json) describes — the status (a problem may fall back to `4XX` or
 * `default`), the media type, the body (read strictly, validated by the independent
 * @cfworker/json-schema against the document's own components), the problem's code among those
 * the status lists, the headers it requires, and `Retry-After` / `WWW-Authenticate` only where
 * documented. A mismatch fails softly with the validator's errors, so one run shows them all.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import doc from "../../../assets/openapi.json";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import { PyFloat, readJson, type Json } from "../../../src/core/json";
import { ADMIN_TOKEN, gate, pinClock, send, wipe } from "../../kit";

// ---------------------------------------------------------------------------------------------
// The document, as a third party reads it.

interface HeaderEntry {
  required?: boolean;
  schema?: Schema;
}
interface ResponseEntry {
  description: string;
  headers?: Record<string, HeaderEntry | Ref>;
  content?: Record<string, { schema?: Schema }>;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseEntry | Ref> }>>;
  components: Record<string, unknown>;
}
interface Ref {
  $ref: string;
}

/** A `#/components/<kind>/<name>` reference followed (responses and headers may be shared). */
function resolve<T>(entry: T | Ref): T {
  if (typeof entry !== "object" || entry === null || !("$ref" in entry)) return entry as T;
  const [, kind, name] = /^#\/components\/([a-z]+)\/(.+)$/.exec(entry.$ref) ?? [];
  const target = (DOC.components[kind ?? ""] as Record<string, T> | undefined)?.[name ?? ""];
  if (target === undefined) throw new Error(`unresolved ${entry.$ref}`);
  return target;
}

const DOC = doc as unknown as OpenApi;
/** The base URI the document's `#/components/...` references resolve against. */
const DOC_URI = "https://openapi.toolgate.test/openapi.json";
/** A copy: the validator annotates the schemas it reads. */
const COMPONENTS = structuredClone(DOC.components);
const validators = new Map<string, Validator>();
/** The problem codes the document names (the ProblemCode schema), to read a status's description for the ones it lists. */
const PROBLEM_CODES = new Set<string>(
  (COMPONENTS as { schemas?: { ProblemCode?: { enum?: string[] } } }).schemas?.ProblemCode?.enum ?? [],
);

/** A validator of one schema of the document, its `#/components/...` references resolvable. */
function validatorFor(schema: Schema): Validator {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (validator === undefined) {
    validator = new Validator(
      { ...structuredClone(schema), $id: DOC_URI, components: COMPONENTS } as Schema,
      "2020-12",
      false,
    );
    validators.set(key, validator);
  }
  return validator;
}

/** The value as a JSON Schema validator must see it: the strict reader's integral floats as numbers. */
function plain(value: Json): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Secrets answered once (credentials, webhook secrets) never reach a failure message. */
function redact(text: string): string {
  return text
    .replace(/tg_[a-z]+_[0-9A-Za-z]+_[0-9a-f]+/g, "tg_<redacted>")
    .replace(/whsec_[A-Za-z0-9+/=]+/g, "whsec_<redacted>");
}

const essence = (mediaType: string | null) => (mediaType ?? "").split(";")[0]!.trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === "application/json" || mediaType.endsWith("+json");

/** Every (method, path, status) this file checked. */
const covered = new Set<string>();

/** A checked answer: its status, headers and body (parsed JSON, the text, or null when empty). */
interface Checked {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Checks one real answer against the document's operation `method pathTemplate`, softly (the
 * test goes on, the failure lists every finding); answers the parsed body. `text` is the body
 * already read (an event stream read in part), else the whole body is read here.
 */
async function expectDocumented(
  method: string,
  pathTemplate: string,
  response: Response,
  text?: string,
): Promise<Checked> {
  covered.add(`${method.toUpperCase()} ${pathTemplate} ${response.status}`);
  const { errors, checked } = await findings(method, pathTemplate, response, text);
  expect.soft(errors, `${method.toUpperCase()} ${pathTemplate} → ${response.status}`).toEqual([]);
  return checked;
}

/** What the document says is wrong with one answer (nothing: an empty list), and the answer read. */
async function findings(
  method: string,
  pathTemplate: string,
  response: Response,
  text?: string,
): Promise<{ errors: string[]; checked: Checked }> {
  const status = response.status;
  const bodyText = text ?? new TextDecoder().decode(await response.arrayBuffer());
  const errors: string[] = [];
  const mediaType = essence(response.headers.get("content-type"));
  let body: unknown = bodyText === "" ? null : bodyText;
  if (isJson(mediaType) && bodyText !== "") {
    const read = readJson(bodyText, { maxBytes: 16 << 20 });
    if (read.ok) body = plain(read.value);
    else errors.push(`the body is not strict JSON: ${read.error.code} ${read.error.message}`);
  }

  const operation = DOC.paths[pathTemplate]?.[method.toLowerCase()];
  const responses = operation?.responses;
  if (responses === undefined) errors.push(`no operation ${method.toUpperCase()} ${pathTemplate} in the document`);
  else {
    const isProblem = mediaType === "application/problem+json";
    const fallbacks = isProblem ? [String(status), `${String(status)[0]}XX`, "default"] : [String(status)];
    const key = fallbacks.find((k) => responses[k] !== undefined);
    const entry =
      key === undefined || responses[key] === undefined ? undefined : resolve<ResponseEntry>(responses[key]);
    if (key === undefined || entry === undefined)
      errors.push(`status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`);
    else {
      errors.push(...checkBody(entry, mediaType, bodyText, body));
      errors.push(...checkHeaders(entry, response.headers));
      if (isProblem && body !== null && typeof body === "object") {
        const code = (body as { code?: unknown }).code;
        const listed = (entry.description.match(/\b[A-Z][A-Z0-9_]+\b/g) ?? []).filter((word) =>
          PROBLEM_CODES.has(word),
        );
        if (typeof code === "string" && !listed.includes(code))
          errors.push(`problem code ${code} is not among those "${key}" documents: ${listed.join(", ") || "(none)"}`);
      }
    }
  }
  if (errors.length > 0) errors.push(`sample body: ${redact(bodyText.slice(0, 600))}`);
  return { errors, checked: { status, headers: response.headers, body } };
}

function checkBody(entry: ResponseEntry, mediaType: string, bodyText: string, body: unknown): string[] {
  const content = entry.content;
  if (content === undefined)
    return bodyText === ""
      ? []
      : [`the answer has a body (${mediaType || "no content-type"}) but the response documents no content`];
  const media = content[mediaType];
  if (media === undefined)
    return [`content-type ${mediaType || "(none)"} is not documented (documented: ${Object.keys(content).join(", ")})`];
  if (media.schema === undefined) return [];
  const result = validatorFor(media.schema).validate(body);
  return result.valid
    ? []
    : result.errors.map((e: OutputUnit) => `${e.instanceLocation} ${e.keyword} (${e.keywordLocation}): ${e.error}`);
}

function checkHeaders(entry: ResponseEntry, headers: Headers): string[] {
  const errors: string[] = [];
  const documented = new Map(
    Object.entries(entry.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve<HeaderEntry>(h)]),
  );
  for (const [name, header] of documented) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required === true) errors.push(`required header ${name} is missing`);
      continue;
    }
    if (header.schema === undefined) continue;
    const typed = header.schema.type === "integer" && /^[0-9]+$/.test(value) ? Number(value) : value;
    const result = validatorFor(header.schema).validate(typed);
    if (!result.valid) errors.push(`header ${name}: ${value} does not match its schema`);
  }
  for (const name of ["retry-after", "www-authenticate"]) {
    if (headers.has(name) && !documented.has(name))
      errors.push(`header ${name} is answered but not documented for this status`);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// The consumers and actors of this file.

const C = "oa-answers";
const LIMITED = "oa-answers-limited";
const CAP = "oa-answers-capability";
const HOSTS = "oa-answers-hosts";
const T0 = 1_784_419_200;
const P = "/v1/consumers/{consumer}";
const BASE = `/v1/consumers/${C}`;
const RATES = { calls_per_second: 1000, call_burst: 1000 };

const OBJECT = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const LOOKUP = {
  description: "Look up a customer's tier.",
  risk: "read",
  input: OBJECT({ customer: { type: "string", minLength: 1, maxLength: 8 } }),
  output: { schema: OBJECT({ customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } }) },
  target: { kind: "http", url: "https://ledger.test/customers/lookup" },
};
/** A write that always waits for an approval. */
const INVOICE = {
  description: "Create an invoice.",
  risk: "write",
  input: OBJECT({ customer: { type: "string" }, amount: { type: "integer" } }),
  output: {
    schema: OBJECT({ invoice_id: { type: "string" }, customer: { type: "string" }, amount: { type: "integer" } }),
  },
  target: { kind: "http", url: "https://ledger.test/invoices" },
};
/** A write without approvals whose unknown outcome is reconciled through the ledger's status URL. */
const POST_INVOICE = {
  ...INVOICE,
  approval: "never",
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    status_url: "https://ledger.test/invoices/status/{status_ref}",
    fence_url: "https://ledger.test/invoices/status/{status_ref}/fence",
  },
};
const TOOLS = ["create_invoice", "lookup_customer", "post_invoice"];

const actors = { agent: "", approver: "", auditor: "", runtime: "" };

async function ledger(body: unknown): Promise<void> {
  await fetch("https://ledger.test/_control", { method: "POST", body: JSON.stringify(body) });
}

/** A request with a raw body and content type. */
function raw(method: string, path: string, token: string | null, contentType: string, body: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": contentType };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return gate(path, { method, headers, body });
}

/** Mints a credential through the checked route; answers its id and secret. */
async function mint(consumer: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const created = await expectDocumented(
    "POST",
    `${P}/credentials`,
    await send("POST", `/v1/consumers/${consumer}/credentials`, ADMIN_TOKEN, body),
  );
  expect(created.status).toBe(201);
  return { id: created.body.credential_id, secret: created.body.secret };
}

let calls = 0;
/** One agent call of a proposal (a fresh call id unless `callId` repeats one). */
function toolCall(
  name: string,
  args: Record<string, unknown>,
  key: string | null,
  callId = `call-${++calls}`,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = {
    proposal: { name, arguments: args },
    context: {
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: key,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-1",
      adapter_revision: "openai-responses-v1",
    },
  };
  return gate(`${BASE}/tool-calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${actors.agent}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  await wipe(C, LIMITED, CAP, HOSTS);
  // The test ledger is shared by the worker tests: its writes answer plainly (no token, no fault mode).
  await ledger({ mode: "ok", token: null });
});

// No delivery of this file is left to retry while other files run; the ledger is left as found.
afterAll(async () => {
  await wipe(C, LIMITED, CAP, HOSTS);
  await ledger({ mode: "ok", token: null });
});

// ---------------------------------------------------------------------------------------------

describe("public routes", () => {
  it("healthz, the document itself, the audit verifier keys", async () => {
    expect((await expectDocumented("GET", "/healthz", await gate("/healthz"))).status).toBe(200);
    expect((await expectDocumented("GET", "/v1/openapi.json", await gate("/v1/openapi.json"))).status).toBe(200);
    expect(
      (await expectDocumented("GET", "/v1/audit/verifier-keys", await gate("/v1/audit/verifier-keys"))).status,
    ).toBe(200);
  });
});

describe("consumers and credentials (admin)", () => {
  it("configures, reads and lists consumers; refuses what the body and the caller get wrong", async () => {
    const put = await expectDocumented(
      "PUT",
      P,
      await send("PUT", BASE, ADMIN_TOKEN, { tools: [], approver_subjects: ["rev-1"], limits: RATES }),
    );
    expect(put.status).toBe(200);
    await pinClock(C, T0);
    expect((await expectDocumented("GET", P, await send("GET", BASE, ADMIN_TOKEN))).status).toBe(200);
    expect(
      (await expectDocumented("GET", "/v1/consumers", await send("GET", "/v1/consumers?limit=500", ADMIN_TOKEN)))
        .status,
    ).toBe(200);

    const anonymous = await expectDocumented("GET", P, await send("GET", BASE, null));
    expect([anonymous.status, anonymous.body.code, anonymous.headers.get("www-authenticate")]).toEqual([
      401,
      "UNAUTHENTICATED",
      'Bearer realm="toolgate"',
    ]);
    const missing = await expectDocumented("GET", P, await send("GET", "/v1/consumers/oa-answers-never", ADMIN_TOKEN));
    expect([missing.status, missing.body.code]).toEqual([404, "NOT_FOUND"]);
    const unknown = await expectDocumented(
      "PUT",
      P,
      await send("PUT", BASE, ADMIN_TOKEN, { tools: [], approver_subjects: [], owner: "x" }),
    );
    expect([unknown.status, unknown.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const text = await expectDocumented("PUT", P, await raw("PUT", BASE, ADMIN_TOKEN, "text/plain", "{}"));
    expect([text.status, text.body.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const big = await expectDocumented(
      "PUT",
      P,
      await send("PUT", BASE, ADMIN_TOKEN, { tools: ["x".repeat(70_000)], approver_subjects: [] }),
    );
    expect([big.status, big.body.code]).toEqual([413, "BODY_TOO_LARGE"]);
    const unlisted = await expectDocumented(
      "PUT",
      P,
      await send("PUT", BASE, ADMIN_TOKEN, { tools: ["no_such_tool"], approver_subjects: [] }),
    );
    expect([unlisted.status, unlisted.body.code]).toEqual([422, "UNKNOWN_TOOL_NAMES"]);
  });

  it("mints, lists and revokes credentials; pings the object", async () => {
    actors.agent = (await mint(C, { kind: "agent", subject_id: "user-1", roles: ["support"] })).secret;
    actors.approver = (await mint(C, { kind: "approver", subject_id: "rev-1" })).secret;
    actors.auditor = (await mint(C, { kind: "auditor" })).secret;
    actors.runtime = (await mint(C, { kind: "runtime" })).secret;
    const spare = await mint(C, { kind: "auditor" });
    expect(
      (await expectDocumented("GET", `${P}/credentials`, await send("GET", `${BASE}/credentials`, ADMIN_TOKEN))).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${P}/credentials/{credential_id}`,
          await send("DELETE", `${BASE}/credentials/${spare.id}`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(204);
    const gone = await expectDocumented(
      "DELETE",
      `${P}/credentials/{credential_id}`,
      await send("DELETE", `${BASE}/credentials/cred_0000000000000000`, ADMIN_TOKEN),
    );
    expect([gone.status, gone.body.code]).toEqual([404, "NOT_FOUND"]);
    const cursor = await expectDocumented(
      "GET",
      `${P}/credentials`,
      await send("GET", `${BASE}/credentials?cursor=Y3JlZF8w`, ADMIN_TOKEN),
    );
    expect([cursor.status, cursor.body.code]).toEqual([400, "INVALID_CURSOR"]);
    const approverless = await expectDocumented(
      "POST",
      `${P}/credentials`,
      await send("POST", `${BASE}/credentials`, ADMIN_TOKEN, { kind: "approver" }),
    );
    expect([approverless.status, approverless.body.code]).toEqual([400, "INVALID_REQUEST"]);
    expect((await expectDocumented("GET", `${P}/ping`, await send("GET", `${BASE}/ping`, ADMIN_TOKEN))).status).toBe(
      200,
    );
  });
});

describe("tools as data and secrets", () => {
  it("defines, reads, lists (the admin's view and every format), disables; refuses a definition with its pointer", async () => {
    for (const [name, definition] of [
      ["lookup_customer", LOOKUP],
      ["create_invoice", INVOICE],
      ["post_invoice", POST_INVOICE],
      ["spare_tool", LOOKUP],
    ] as const) {
      expect(
        (
          await expectDocumented(
            "PUT",
            `${P}/tools/{name}`,
            await send("PUT", `${BASE}/tools/${name}`, ADMIN_TOKEN, definition),
          )
        ).status,
      ).toBe(200);
    }
    const bad = await expectDocumented(
      "PUT",
      `${P}/tools/{name}`,
      await send("PUT", `${BASE}/tools/bad_tool`, ADMIN_TOKEN, { ...LOOKUP, input: { type: "string" } }),
    );
    expect([bad.status, bad.body.code, typeof bad.body.path]).toEqual([422, "INVALID_TOOL_DEFINITION", "string"]);
    expect(
      (
        await expectDocumented(
          "PUT",
          P,
          await send("PUT", BASE, ADMIN_TOKEN, {
            tools: [...TOOLS, "spare_tool"],
            approver_subjects: ["rev-1"],
            limits: RATES,
          }),
        )
      ).status,
    ).toBe(200);

    expect((await expectDocumented("GET", `${P}/tools`, await send("GET", `${BASE}/tools`, ADMIN_TOKEN))).status).toBe(
      200,
    );
    for (const format of ["openai", "anthropic", "gemini", "json-schema"]) {
      const listed = await expectDocumented(
        "GET",
        `${P}/tools`,
        await send("GET", `${BASE}/tools?format=${format}`, actors.agent),
      );
      expect([listed.status, listed.body.format]).toEqual([200, format]);
    }
    const asAgent = await expectDocumented("GET", `${P}/tools`, await send("GET", `${BASE}/tools`, actors.agent));
    expect(asAgent.status).toBe(200);
    const badFormat = await expectDocumented(
      "GET",
      `${P}/tools`,
      await send("GET", `${BASE}/tools?format=cobol`, actors.agent),
    );
    expect([badFormat.status, badFormat.body.code]).toEqual([400, "INVALID_REQUEST"]);

    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/tools/{name}`,
          await send("GET", `${BASE}/tools/lookup_customer`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    const none = await expectDocumented(
      "GET",
      `${P}/tools/{name}`,
      await send("GET", `${BASE}/tools/never_defined`, ADMIN_TOKEN),
    );
    expect([none.status, none.body.code]).toEqual([404, "NOT_FOUND"]);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${P}/tools/{name}`,
          await send("DELETE", `${BASE}/tools/spare_tool`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(204);
  });

  it("stores, lists and deletes a secret", async () => {
    expect(
      (
        await expectDocumented(
          "PUT",
          `${P}/secrets/{name}`,
          await send("PUT", `${BASE}/secrets/ledger_token`, ADMIN_TOKEN, { value: "oa-secret-value" }),
        )
      ).status,
    ).toBe(204);
    const listed = await expectDocumented("GET", `${P}/secrets`, await send("GET", `${BASE}/secrets`, ADMIN_TOKEN));
    expect([listed.status, listed.body.secrets]).toEqual([200, ["ledger_token"]]);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${P}/secrets/{name}`,
          await send("DELETE", `${BASE}/secrets/ledger_token`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(204);
  });
});

let endpointId = "";

describe("webhook endpoints (created before the events they hear)", () => {
  it("creates, lists and reads an endpoint", async () => {
    const created = await expectDocumented(
      "POST",
      `${P}/webhooks`,
      await send("POST", `${BASE}/webhooks`, ADMIN_TOKEN, {
        url: "https://hooks.test/oa-answers",
        description: "openapi answers",
      }),
    );
    expect(created.status).toBe(201);
    endpointId = created.body.endpoint_id;
    await fetch("https://hooks.test/_control", {
      method: "POST",
      body: JSON.stringify({ secret: { path: "/oa-answers", secret: created.body.secret } }),
    });
    expect(
      (await expectDocumented("GET", `${P}/webhooks`, await send("GET", `${BASE}/webhooks`, ADMIN_TOKEN))).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/webhooks/{endpoint_id}`,
          await send("GET", `${BASE}/webhooks/${endpointId}`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    const refused = await expectDocumented(
      "POST",
      `${P}/webhooks`,
      await send("POST", `${BASE}/webhooks`, ADMIN_TOKEN, { url: "ftp://hooks.test/a" }),
    );
    expect([refused.status, refused.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });
});

let approvalId = "";

describe("tool calls and approvals", () => {
  it("runs a read; a write asks for an approval, which is decided once, and the write then runs", async () => {
    const read = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await toolCall("lookup_customer", { customer: "acme" }, null),
    );
    expect([read.status, read.body.model_result?.status]).toEqual([200, "succeeded"]);

    const asked = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await toolCall("create_invoice", { customer: "acme", amount: 5 }, "oa-key-1", "call-write"),
    );
    expect([asked.status, asked.body.model_result?.error?.code, typeof asked.body.approval_id]).toEqual([
      200,
      "APPROVAL_REQUIRED",
      "string",
    ]);
    approvalId = asked.body.approval_id;

    const list = await expectDocumented(
      "GET",
      `${P}/approvals`,
      await send("GET", `${BASE}/approvals?state=pending`, actors.approver),
    );
    expect(list.status).toBe(200);
    const view = (list.body.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
      (a) => a.approval_id === approvalId,
    );
    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/approvals/{approval_id}`,
          await send("GET", `${BASE}/approvals/${approvalId}`, actors.agent),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/approvals/{approval_id}`,
          await send("GET", `${BASE}/approvals/${approvalId}?wait=0`, actors.agent),
        )
      ).status,
    ).toBe(200);
    const unknownApproval = await expectDocumented(
      "GET",
      `${P}/approvals/{approval_id}`,
      await send("GET", `${BASE}/approvals/apr_00000000000000000000000000000000`, actors.approver),
    );
    expect([unknownApproval.status, unknownApproval.body.code]).toEqual([404, "NOT_FOUND"]);

    const decision = { decision: "approve", approval_digest: view?.approval_digest };
    const decided = await expectDocumented(
      "POST",
      `${P}/approvals/{approval_id}`,
      await send("POST", `${BASE}/approvals/${approvalId}`, actors.approver, decision),
    );
    expect(decided.status).toBe(200);
    const again = await expectDocumented(
      "POST",
      `${P}/approvals/{approval_id}`,
      await send("POST", `${BASE}/approvals/${approvalId}`, actors.approver, decision),
    );
    expect([again.status, again.body.code]).toEqual([409, "APPROVAL_ALREADY_DECIDED"]);

    const ran = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await toolCall("create_invoice", { customer: "acme", amount: 5 }, "oa-key-1", "call-write"),
    );
    expect([ran.status, ran.body.model_result?.status]).toEqual([200, "succeeded"]);
  });

  it("answers each provider profile's native item", async () => {
    const profiles: Array<[string, string, string, Record<string, unknown>, string | undefined]> = [
      [
        "openai",
        "responses",
        "openai-responses-v1",
        { type: "function_call", call_id: "oa_resp_1", name: "lookup_customer", arguments: '{"customer":"acme"}' },
        undefined,
      ],
      [
        "openai",
        "chat_completions",
        "openai-chat-completions-v1",
        { id: "oa_chat_1", type: "function", function: { name: "lookup_customer", arguments: '{"customer":"acme"}' } },
        undefined,
      ],
      [
        "anthropic",
        "messages",
        "anthropic-messages-v1",
        { type: "tool_use", id: "toolu_oa_1", name: "lookup_customer", input: { customer: "acme" } },
        undefined,
      ],
      [
        "google",
        "interactions",
        "gemini-interactions-v1",
        { type: "function_call", id: "fc_oa_1", name: "lookup_customer", arguments: { customer: "acme" } },
        undefined,
      ],
      [
        "google",
        "interactions",
        "gemini-interactions-v2",
        { type: "function_call", id: "fc_oa_2", name: "lookup_customer", arguments: { customer: "nobody" } },
        undefined,
      ],
      [
        "google",
        "generate_content",
        "gemini-generate-content-v1",
        { functionCall: { name: "lookup_customer", args: { customer: "acme" } } },
        "oa_gc_1",
      ],
    ];
    const families: string[] = [];
    for (const [provider, family, revision, item, callId] of profiles) {
      const context = {
        ...(callId === undefined ? {} : { call_id: callId }),
        operation_id: `op-${revision}`,
        provider,
        api_family: family,
        response_id: "resp-1",
        adapter_revision: revision,
      };
      const res = await expectDocumented(
        "POST",
        `${P}/tool-calls`,
        await send("POST", `${BASE}/tool-calls`, actors.agent, { provider_item: item, context }),
      );
      expect(res.status).toBe(200);
      families.push(
        `${revision}: ${Object.keys(res.body.provider_output ?? {})
          .sort()
          .join(",")}`,
      );
    }
    expect(families).toEqual([
      "openai-responses-v1: call_id,output,type",
      "openai-chat-completions-v1: content,role,tool_call_id",
      "anthropic-messages-v1: content,is_error,tool_use_id,type",
      "gemini-interactions-v1: input,previous_interaction_id",
      "gemini-interactions-v2: input,previous_interaction_id",
      "gemini-generate-content-v1: functionResponse",
    ]);
  });

  // On a consumer of its own, of catalog tools only, with the rate limits these refusals need.
  it("refuses a host error, an unknown profile, a mismatched or malformed Idempotency-Key, and a call without a credential", async () => {
    const hosts = `/v1/consumers/${HOSTS}`;
    expect(
      (
        await expectDocumented(
          "PUT",
          P,
          await send("PUT", hosts, ADMIN_TOKEN, { tools: ["get_order"], approver_subjects: [], limits: RATES }),
        )
      ).status,
    ).toBe(200);
    const agent = (await mint(HOSTS, { kind: "agent", subject_id: "user-1" })).secret;
    const context = {
      operation_id: "op-x",
      provider: "google",
      api_family: "generate_content",
      response_id: "resp-1",
      adapter_revision: "gemini-generate-content-v1",
    };
    const order = { name: "get_order", arguments: { order_ref: "ORDER-7" } };
    const post = (token: string | null, body: unknown, headers: Record<string, string> = {}) =>
      gate(`${hosts}/tool-calls`, {
        method: "POST",
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const hostError = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await post(agent, { provider_item: { functionCall: { name: "get_order", args: {} } }, context }),
    );
    expect([hostError.status, hostError.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const profile = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await post(agent, {
        proposal: order,
        context: { ...context, call_id: "c-1", adapter_revision: "gemini-generate-content-v9" },
      }),
    );
    expect([profile.status, profile.body.code]).toEqual([400, "INVALID_HOST_CONTEXT"]);
    const mismatch = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await post(
        agent,
        { proposal: order, context: { ...context, call_id: "c-2", idempotency_key: "body-key" } },
        { "idempotency-key": '"header-key"' },
      ),
    );
    expect([mismatch.status, mismatch.body.code]).toEqual([422, "IDEMPOTENCY_KEY_MISMATCH"]);
    const malformed = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await post(
        agent,
        { proposal: order, context: { ...context, call_id: "c-3" } },
        { "idempotency-key": '"unterminated' },
      ),
    );
    expect([malformed.status, malformed.body.code]).toEqual([400, "INVALID_IDEMPOTENCY_KEY"]);
    const anonymous = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await post(null, { proposal: order, context: { ...context, call_id: "c-4" } }),
    );
    expect([anonymous.status, anonymous.body.code, anonymous.headers.get("www-authenticate")]).toEqual([
      401,
      "UNAUTHENTICATED",
      'Bearer realm="toolgate"',
    ]);
    const text = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await raw("POST", `${hosts}/tool-calls`, agent, "text/plain", "{}"),
    );
    expect([text.status, text.body.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
  });

  it("reconciles an unknown outcome through tool-calls/status", async () => {
    await ledger({ mode: "error_after_commit" });
    const lost = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await toolCall("post_invoice", { customer: "acme", amount: 60 }, "oa-key-lost", "call-lost"),
    );
    await ledger({ mode: "ok" });
    expect([lost.status, lost.body.model_result?.status, typeof lost.body.status_ref]).toEqual([
      200,
      "unknown",
      "string",
    ]);
    const status = await send("POST", `${BASE}/tool-calls/status`, actors.agent, {
      proposal: { name: "post_invoice", arguments: { customer: "acme", amount: 60 } },
      context: {
        call_id: "call-lost-status",
        operation_id: "op-call-lost",
        idempotency_key: "oa-key-lost",
        provider: "openai",
        api_family: "responses",
        response_id: "resp-1",
        adapter_revision: "openai-responses-v1",
      },
      status_ref: lost.body.status_ref,
    });
    const reconciled = await expectDocumented("POST", `${P}/tool-calls/status`, status);
    expect([reconciled.status, reconciled.body.model_result?.status]).toEqual([200, "succeeded"]);
  });

  it("answers one model turn as one provider message", async () => {
    const res = await send("POST", `${BASE}/tool-calls/batch`, actors.agent, {
      context: {
        provider: "anthropic",
        api_family: "messages",
        response_id: "resp-batch",
        adapter_revision: "anthropic-messages-v1",
      },
      calls: [
        {
          provider_item: { type: "tool_use", id: "toolu_b1", name: "lookup_customer", input: { customer: "acme" } },
          operation_id: "op-b1",
        },
        {
          provider_item: { type: "tool_use", id: "toolu_b2", name: "lookup_customer", input: { customer: "nobody" } },
          operation_id: "op-b2",
        },
      ],
    });
    const batch = await expectDocumented("POST", `${P}/tool-calls/batch`, res);
    expect([batch.status, batch.body.provider_message?.role, batch.body.calls?.length]).toEqual([200, "user", 2]);
    const empty = await expectDocumented(
      "POST",
      `${P}/tool-calls/batch`,
      await send("POST", `${BASE}/tool-calls/batch`, actors.agent, {
        context: {
          provider: "anthropic",
          api_family: "messages",
          response_id: "r",
          adapter_revision: "anthropic-messages-v1",
        },
        calls: [],
      }),
    );
    expect([empty.status, empty.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("streams the approvals as server-sent events", async () => {
    const controller = new AbortController();
    const res = await gate(`${BASE}/approvals/events`, {
      headers: { authorization: `Bearer ${actors.approver}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    const reader = res.body?.getReader();
    const first = reader === undefined ? "" : new TextDecoder().decode((await reader.read()).value);
    await reader?.cancel();
    controller.abort();
    const stream = await expectDocumented("GET", `${P}/approvals/events`, res, first);
    expect(stream.status).toBe(200);
  });

  it("answers 429 RATE_LIMITED with Retry-After past a credential's burst", async () => {
    expect(
      (
        await expectDocumented(
          "PUT",
          P,
          await send("PUT", `/v1/consumers/${LIMITED}`, ADMIN_TOKEN, {
            tools: ["get_order"],
            approver_subjects: [],
            limits: { calls_per_second: 1, call_burst: 1 },
          }),
        )
      ).status,
    ).toBe(200);
    await pinClock(LIMITED, T0);
    const agent = (await mint(LIMITED, { kind: "agent", subject_id: "user-1" })).secret;
    const body = (id: string) => ({
      proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      context: {
        call_id: id,
        operation_id: `op-${id}`,
        provider: "openai",
        api_family: "responses",
        response_id: "resp-1",
        adapter_revision: "openai-responses-v1",
      },
    });
    const first = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await send("POST", `/v1/consumers/${LIMITED}/tool-calls`, agent, body("rl-1")),
    );
    const second = await expectDocumented(
      "POST",
      `${P}/tool-calls`,
      await send("POST", `/v1/consumers/${LIMITED}/tool-calls`, agent, body("rl-2")),
    );
    expect([first.status, second.status, second.body.code, second.headers.get("retry-after")]).toEqual([
      200,
      429,
      "RATE_LIMITED",
      "1",
    ]);
  });
});

describe("webhook deliveries", () => {
  it("pages the deliveries, redelivers a finished one, refuses redelivering a pending one, deletes the endpoint", async () => {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(C));
    if (!(await runDurableObjectAlarm(stub))) await runInDurableObject(stub, (object) => object.alarm());
    const page = await expectDocumented(
      "GET",
      `${P}/webhooks/deliveries`,
      await send("GET", `${BASE}/webhooks/deliveries?endpoint_id=${endpointId}`, ADMIN_TOKEN),
    );
    const finished = (page.body.deliveries as Array<{ delivery_id: string; state: string }>).find(
      (d) => d.state === "delivered",
    );
    expect([page.status, typeof finished?.delivery_id]).toEqual([200, "string"]);
    // The redelivery's first attempt is refused, so it is still pending when redelivered again.
    await fetch("https://hooks.test/_control", {
      method: "POST",
      body: JSON.stringify({ fail: { path: "/oa-answers", count: 1 } }),
    });
    const again = await expectDocumented(
      "POST",
      `${P}/webhooks/deliveries/{delivery_id}/redeliver`,
      await send("POST", `${BASE}/webhooks/deliveries/${finished?.delivery_id}/redeliver`, ADMIN_TOKEN),
    );
    expect([again.status, again.body.state]).toEqual([202, "pending"]);
    if (!(await runDurableObjectAlarm(stub))) await runInDurableObject(stub, (object) => object.alarm());
    const pending = await expectDocumented(
      "POST",
      `${P}/webhooks/deliveries/{delivery_id}/redeliver`,
      await send("POST", `${BASE}/webhooks/deliveries/${again.body.delivery_id}/redeliver`, ADMIN_TOKEN),
    );
    expect([pending.status, pending.body.code]).toEqual([409, "WEBHOOK_DELIVERY_PENDING"]);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${P}/webhooks/{endpoint_id}`,
          await send("DELETE", `${BASE}/webhooks/${endpointId}`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(204);
    const gone = await expectDocumented(
      "GET",
      `${P}/webhooks/{endpoint_id}`,
      await send("GET", `${BASE}/webhooks/${endpointId}`, ADMIN_TOKEN),
    );
    expect([gone.status, gone.body.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("the audit log", () => {
  it("pages, verifies, signs checkpoints, proves inclusion and consistency, exports", async () => {
    const get = (path: string) => send("GET", `${BASE}/audit${path}`, actors.auditor);
    expect((await expectDocumented("GET", `${P}/audit`, await get("?limit=5"))).status).toBe(200);
    expect((await expectDocumented("GET", `${P}/audit/verify`, await get("/verify"))).status).toBe(200);
    const first = await expectDocumented("GET", `${P}/audit/checkpoint`, await get("/checkpoint"));
    expect(first.status).toBe(200);
    expect(
      (await expectDocumented("GET", `${P}/audit/proof/inclusion`, await get("/proof/inclusion?seq=1"))).status,
    ).toBe(200);
    await toolCall("lookup_customer", { customer: "acme" }, null);
    const second = await expectDocumented("GET", `${P}/audit/checkpoint`, await get("/checkpoint"));
    expect(second.body.size > first.body.size).toBe(true);
    const proof = await expectDocumented(
      "GET",
      `${P}/audit/proof/consistency`,
      await get(`/proof/consistency?from=${first.body.size}&to=${second.body.size}`),
    );
    expect(proof.status).toBe(200);
    const backwards = await expectDocumented(
      "GET",
      `${P}/audit/proof/consistency`,
      await get(`/proof/consistency?from=${second.body.size}&to=${first.body.size}`),
    );
    expect([backwards.status, backwards.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const exported = await expectDocumented("GET", `${P}/audit/export`, await get("/export"));
    expect(exported.status).toBe(200);
    const byAgent = await expectDocumented("GET", `${P}/audit`, await send("GET", `${BASE}/audit`, actors.agent));
    expect([byAgent.status, byAgent.body.code]).toEqual([403, "FORBIDDEN"]);
  });
});

describe("the MCP endpoint and MCP servers", () => {
  it("initializes a session (JSON), takes a notification, refuses a message without a session, ends the session", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}, token: string | null = actors.agent) =>
      gate(`${BASE}/mcp`, {
        method: "POST",
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const init = await expectDocumented(
      "POST",
      `${P}/mcp`,
      await post({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "oa", version: "1" } },
      }),
    );
    expect(init.status).toBe(200);
    const session = {
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-11-25",
    };
    expect(
      (
        await expectDocumented(
          "POST",
          `${P}/mcp`,
          await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session),
        )
      ).status,
    ).toBe(202);
    const tools = await expectDocumented(
      "POST",
      `${P}/mcp`,
      await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session),
    );
    expect(tools.status).toBe(200);
    const sessionless = await expectDocumented(
      "POST",
      `${P}/mcp`,
      await post({ jsonrpc: "2.0", id: 3, method: "ping" }),
    );
    expect(sessionless.status).toBe(400);
    const anonymous = await expectDocumented(
      "POST",
      `${P}/mcp`,
      await post({ jsonrpc: "2.0", id: 4, method: "ping" }, {}, null),
    );
    expect(anonymous.status).toBe(401);
    const ended = await gate(`${BASE}/mcp`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${actors.agent}`, ...session },
    });
    expect((await expectDocumented("DELETE", `${P}/mcp`, ended)).status).toBe(204);
  });

  it("registers, lists, reads, imports again and unregisters an MCP server; refuses a second registration", async () => {
    const registration = { name: "plain", url: "https://mcp.test/json/mcp", prefix: "plain_" };
    expect(
      (
        await expectDocumented(
          "POST",
          `${P}/mcp-servers`,
          await send("POST", `${BASE}/mcp-servers`, ADMIN_TOKEN, registration),
        )
      ).status,
    ).toBe(200);
    const twice = await expectDocumented(
      "POST",
      `${P}/mcp-servers`,
      await send("POST", `${BASE}/mcp-servers`, ADMIN_TOKEN, registration),
    );
    expect([twice.status, twice.body.code]).toEqual([409, "MCP_SERVER_EXISTS"]);
    expect(
      (await expectDocumented("GET", `${P}/mcp-servers`, await send("GET", `${BASE}/mcp-servers`, ADMIN_TOKEN))).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/mcp-servers/{name}`,
          await send("GET", `${BASE}/mcp-servers/plain`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "POST",
          `${P}/mcp-servers/{name}/import`,
          await send("POST", `${BASE}/mcp-servers/plain/import`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${P}/mcp-servers/{name}`,
          await send("DELETE", `${BASE}/mcp-servers/plain`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    const gone = await expectDocumented(
      "GET",
      `${P}/mcp-servers/{name}`,
      await send("GET", `${BASE}/mcp-servers/plain`, ADMIN_TOKEN),
    );
    expect([gone.status, gone.body.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("the runtime's App Facade", () => {
  it("sets and reads the facade targets, refuses unknown tools, answers an envelope", async () => {
    const targets = { targets: { "/app/customers/lookup": "lookup_customer" } };
    expect(
      (
        await expectDocumented(
          "PUT",
          `${P}/runtime/facade-targets`,
          await send("PUT", `${BASE}/runtime/facade-targets`, ADMIN_TOKEN, targets),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "GET",
          `${P}/runtime/facade-targets`,
          await send("GET", `${BASE}/runtime/facade-targets`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
    const unknown = await expectDocumented(
      "PUT",
      `${P}/runtime/facade-targets`,
      await send("PUT", `${BASE}/runtime/facade-targets`, ADMIN_TOKEN, { targets: { "/app/x": "rm_rf" } }),
    );
    expect([unknown.status, unknown.body.code]).toEqual([422, "UNKNOWN_TOOL_NAMES"]);
    const envelope = readJson(prepareFixture);
    if (!envelope.ok) throw new Error(envelope.error.message);
    const invoke = plain(envelope.value) as {
      metadata: { message_id: string };
      payload: { payload: { phase: string; request: unknown } };
    };
    invoke.metadata.message_id = "oa-invoke-1";
    invoke.payload.payload.phase = "invoke";
    invoke.payload.payload.request = {
      operation_id: "run-1:step:0:tool:call-1",
      target: "/app/customers/lookup",
      input: { customer: "acme" },
    };
    const plainGet = await expectDocumented(
      "GET",
      `${P}/runtime/connect`,
      await send("GET", `${BASE}/runtime/connect`, actors.runtime),
    );
    expect([plainGet.status, plainGet.body.code]).toEqual([426, "UPGRADE_REQUIRED"]);
    const answer = await expectDocumented(
      "POST",
      `${P}/runtime/envelopes`,
      await send("POST", `${BASE}/runtime/envelopes`, actors.runtime, invoke),
    );
    expect([answer.status, answer.body.payload?.family]).toEqual([200, "app_facade_response"]);
  });
});

describe("browser capabilities", () => {
  const cap = `/v1/consumers/${CAP}/capability`;
  const CP = `${P}/capability`;
  const key = {
    consumer_id: CAP,
    actor_id: "agent-1",
    instance_id: 7,
    generation: 1,
    provider_id: "browser-1",
    capability_id: "browser.page.snapshot",
    resource_scope_id: "tab:1",
  };
  const request = (localId: number) => ({
    actor_id: "agent-1",
    request: {
      local_id: localId,
      instance_id: 7,
      generation: 1,
      provider_id: "browser-1",
      capability_id: "browser.page.snapshot",
      resource_scope_id: "tab:1",
      approval_summary: "Read the active tab",
      deadline_tick: 1_005_000,
      payload: [123, 125],
    },
  });

  it("registers a provider, runs a request through effect, observation and completion, and refuses what the engine refuses", async () => {
    expect(
      (
        await expectDocumented(
          "PUT",
          P,
          await send("PUT", `/v1/consumers/${CAP}`, ADMIN_TOKEN, { tools: [], approver_subjects: ["approver-1"] }),
        )
      ).status,
    ).toBe(200);
    await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(CAP)), (object) => {
      object.capability.pinnedMillis = 1_000_000;
    });
    const agent = (await mint(CAP, { kind: "agent", subject_id: "agent-1" })).secret;
    const approver = (await mint(CAP, { kind: "approver", subject_id: "approver-1" })).secret;
    const provider = (await mint(CAP, { kind: "provider", subject_id: "browser-1" })).secret;
    const auditor = (await mint(CAP, { kind: "auditor" })).secret;

    const descriptor = {
      id: "browser-1",
      owner: { consumer: CAP },
      capabilities: [{ id: "browser.page.snapshot", class: "browser", description: "Read page state" }],
    };
    expect(
      (
        await expectDocumented(
          "POST",
          `${CP}/providers`,
          await send("POST", `${cap}/providers`, ADMIN_TOKEN, { descriptor }),
        )
      ).status,
    ).toBe(201);
    const forbidden = {
      id: "shell-1",
      owner: "gate",
      capabilities: [{ id: "shell.exec", class: "browser", description: "x" }],
    };
    const byAgent = await expectDocumented(
      "POST",
      `${CP}/providers`,
      await send("POST", `${cap}/providers`, agent, { descriptor: forbidden }),
    );
    expect([byAgent.status, byAgent.body.code]).toEqual([403, "FORBIDDEN"]);
    const invalid = await expectDocumented(
      "POST",
      `${CP}/providers`,
      await send("POST", `${cap}/providers`, ADMIN_TOKEN, { descriptor: forbidden }),
    );
    expect([invalid.status, invalid.body.code, invalid.body.error]).toEqual([
      422,
      "CAPABILITY_INVALID",
      { validation: { "capability-outside-admission": { capability_id: "shell.exec" } } },
    ]);

    expect(
      (
        await expectDocumented(
          "PUT",
          `${CP}/instances/{instance_id}`,
          await send("PUT", `${cap}/instances/7`, ADMIN_TOKEN, { generation: 1, state: "active" }),
        )
      ).status,
    ).toBe(200);
    const grant = { command: { "set-grant": { grant: { key, mode: "allow" } } } };
    expect(
      (await expectDocumented("POST", `${CP}/authority`, await send("POST", `${cap}/authority`, approver, grant)))
        .status,
    ).toBe(200);
    const detached = await expectDocumented(
      "POST",
      `${CP}/requests`,
      await send("POST", `${cap}/requests`, agent, request(1)),
    );
    expect([detached.status, detached.body.error]).toEqual([
      409,
      { "provider-unavailable": { provider_id: "browser-1" } },
    ]);
    const plainGet = await expectDocumented(
      "GET",
      `${CP}/providers/{provider_id}/connect`,
      await send("GET", `${cap}/providers/browser-1/connect`, provider),
    );
    expect([plainGet.status, plainGet.body.code]).toEqual([426, "UPGRADE_REQUIRED"]);
    expect(
      (
        await expectDocumented(
          "POST",
          `${CP}/providers/{provider_id}/attach`,
          await send("POST", `${cap}/providers/browser-1/attach`, provider),
        )
      ).status,
    ).toBe(200);
    expect(
      (await expectDocumented("POST", `${CP}/requests`, await send("POST", `${cap}/requests`, agent, request(1))))
        .status,
    ).toBe(200);
    const effects = await expectDocumented(
      "GET",
      `${CP}/providers/{provider_id}/effects`,
      await send("GET", `${cap}/providers/browser-1/effects?binding_id=1&wait=0`, provider),
    );
    expect([effects.status, effects.body.effects?.length]).toEqual([200, 1]);
    const badQuery = await expectDocumented(
      "GET",
      `${CP}/providers/{provider_id}/effects`,
      await send("GET", `${cap}/providers/browser-1/effects?binding_id=x`, provider),
    );
    expect(badQuery.status).toBe(400);
    const observation = {
      binding_id: 1,
      observation: {
        operation_id: 1,
        request_key: { consumer_id: CAP, actor_id: "agent-1", local_id: 1 },
        instance_id: 7,
        generation: 1,
        provider_id: "browser-1",
        observation: {
          succeeded: {
            result: {
              metadata: { byte_len: 2, media_type: "application/json", truncated: false, redacted_summary: null },
              delivery: { inline: { bytes: [123, 125] } },
            },
          },
        },
      },
    };
    expect(
      (
        await expectDocumented(
          "POST",
          `${CP}/providers/{provider_id}/observations`,
          await send("POST", `${cap}/providers/browser-1/observations`, provider, observation),
        )
      ).status,
    ).toBe(200);
    expect(
      (await expectDocumented("POST", `${CP}/completions/drain`, await send("POST", `${cap}/completions/drain`, agent)))
        .status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "GET",
          `${CP}/requests/{actor_id}/{local_id}`,
          await send("GET", `${cap}/requests/agent-1/1`, agent),
        )
      ).status,
    ).toBe(200);
    expect(
      (await expectDocumented("GET", `${CP}/approvals`, await send("GET", `${cap}/approvals`, approver))).status,
    ).toBe(200);
    expect(
      (await expectDocumented("GET", `${CP}/snapshot`, await send("GET", `${cap}/snapshot`, auditor))).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "POST",
          `${CP}/providers/{provider_id}/detach`,
          await send("POST", `${cap}/providers/browser-1/detach`, provider, { binding_id: 1 }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await expectDocumented(
          "DELETE",
          `${CP}/instances/{instance_id}`,
          await send("DELETE", `${cap}/instances/7`, ADMIN_TOKEN),
        )
      ).status,
    ).toBe(200);
  });
});

describe("the judge itself", () => {
  const problem = (code: string, status: number) => ({
    type: "https://toolgate.dev/problems/x",
    title: "x",
    status,
    code,
    detail: "x",
  });
  const answer = (
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    type = "application/problem+json",
  ) =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": type, ...headers },
    });

  it("finds an undocumented status, a missing required header, an undocumented Retry-After, an unlisted code and a bad body", async () => {
    const check = async (method: string, path: string, res: Response) =>
      (await findings(method, path, res)).errors.slice(0, -1);
    expect(await check("GET", "/healthz", answer(418, { teapot: true }, {}, "application/json"))).toEqual([
      "status 418 is not documented (documented: 200, 4XX, default)",
    ]);
    expect(await check("GET", P, answer(401, problem("UNAUTHENTICATED", 401)))).toEqual([
      "required header www-authenticate is missing",
    ]);
    expect(await check("GET", P, answer(404, problem("NOT_FOUND", 404), { "retry-after": "1" }))).toEqual([
      "header retry-after is answered but not documented for this status",
    ]);
    expect(await check("GET", P, answer(404, problem("RATE_LIMITED", 404)))).toEqual([
      'problem code RATE_LIMITED is not among those "404" documents: NOT_FOUND',
    ]);
    expect(await check("GET", "/healthz", answer(200, "ok", {}, "text/plain"))).toEqual([
      "content-type text/plain is not documented (documented: application/json)",
    ]);
    const duplicate = await check("GET", "/healthz", answer(200, '{"a":1,"a":2}', {}, "application/json"));
    expect(duplicate[0]).toMatch(/^the body is not strict JSON: JSON_DUPLICATE_KEY /);
    const bad = await check(
      "POST",
      `${P}/tool-calls`,
      answer(200, { model_result: {}, provider_output: {} }, {}, "application/json"),
    );
    expect(bad.length > 0 && bad.every((e) => e.startsWith("#"))).toBe(true);
  });
});

describe("coverage", () => {
  it("lists the operations and statuses this file checked against the document", () => {
    const byOperation = new Map<string, string[]>();
    for (const triple of covered) {
      const [method, path, status] = triple.split(" ") as [string, string, string];
      const key = `${method} ${path}`;
      byOperation.set(key, [...(byOperation.get(key) ?? []), status].sort());
    }
    const lines = [...byOperation].map(([operation, statuses]) => `${operation} ${statuses.join(" ")}`).sort();
    expect(lines).toMatchInlineSnapshot(`
      [
        "DELETE /v1/consumers/{consumer}/capability/instances/{instance_id} 200",
        "DELETE /v1/consumers/{consumer}/credentials/{credential_id} 204 404",
        "DELETE /v1/consumers/{consumer}/mcp 204",
        "DELETE /v1/consumers/{consumer}/mcp-servers/{name} 200",
        "DELETE /v1/consumers/{consumer}/secrets/{name} 204",
        "DELETE /v1/consumers/{consumer}/tools/{name} 204",
        "DELETE /v1/consumers/{consumer}/webhooks/{endpoint_id} 204",
        "GET /healthz 200",
        "GET /v1/audit/verifier-keys 200",
        "GET /v1/consumers 200",
        "GET /v1/consumers/{consumer} 200 401 404",
        "GET /v1/consumers/{consumer}/approvals 200",
        "GET /v1/consumers/{consumer}/approvals/events 200",
        "GET /v1/consumers/{consumer}/approvals/{approval_id} 200 404",
        "GET /v1/consumers/{consumer}/audit 200 403",
        "GET /v1/consumers/{consumer}/audit/checkpoint 200",
        "GET /v1/consumers/{consumer}/audit/export 200",
        "GET /v1/consumers/{consumer}/audit/proof/consistency 200 400",
        "GET /v1/consumers/{consumer}/audit/proof/inclusion 200",
        "GET /v1/consumers/{consumer}/audit/verify 200",
        "GET /v1/consumers/{consumer}/capability/approvals 200",
        "GET /v1/consumers/{consumer}/capability/providers/{provider_id}/connect 426",
        "GET /v1/consumers/{consumer}/capability/providers/{provider_id}/effects 200 400",
        "GET /v1/consumers/{consumer}/capability/requests/{actor_id}/{local_id} 200",
        "GET /v1/consumers/{consumer}/capability/snapshot 200",
        "GET /v1/consumers/{consumer}/credentials 200 400",
        "GET /v1/consumers/{consumer}/mcp-servers 200",
        "GET /v1/consumers/{consumer}/mcp-servers/{name} 200 404",
        "GET /v1/consumers/{consumer}/ping 200",
        "GET /v1/consumers/{consumer}/runtime/connect 426",
        "GET /v1/consumers/{consumer}/runtime/facade-targets 200",
        "GET /v1/consumers/{consumer}/secrets 200",
        "GET /v1/consumers/{consumer}/tools 200 400",
        "GET /v1/consumers/{consumer}/tools/{name} 200 404",
        "GET /v1/consumers/{consumer}/webhooks 200",
        "GET /v1/consumers/{consumer}/webhooks/deliveries 200",
        "GET /v1/consumers/{consumer}/webhooks/{endpoint_id} 200 404",
        "GET /v1/openapi.json 200",
        "POST /v1/consumers/{consumer}/approvals/{approval_id} 200 409",
        "POST /v1/consumers/{consumer}/capability/authority 200",
        "POST /v1/consumers/{consumer}/capability/completions/drain 200",
        "POST /v1/consumers/{consumer}/capability/providers 201 403 422",
        "POST /v1/consumers/{consumer}/capability/providers/{provider_id}/attach 200",
        "POST /v1/consumers/{consumer}/capability/providers/{provider_id}/detach 200",
        "POST /v1/consumers/{consumer}/capability/providers/{provider_id}/observations 200",
        "POST /v1/consumers/{consumer}/capability/requests 200 409",
        "POST /v1/consumers/{consumer}/credentials 201 400",
        "POST /v1/consumers/{consumer}/mcp 200 202 400 401",
        "POST /v1/consumers/{consumer}/mcp-servers 200 409",
        "POST /v1/consumers/{consumer}/mcp-servers/{name}/import 200",
        "POST /v1/consumers/{consumer}/runtime/envelopes 200",
        "POST /v1/consumers/{consumer}/tool-calls 200 400 401 415 422 429",
        "POST /v1/consumers/{consumer}/tool-calls/batch 200 400",
        "POST /v1/consumers/{consumer}/tool-calls/status 200",
        "POST /v1/consumers/{consumer}/webhooks 201 400",
        "POST /v1/consumers/{consumer}/webhooks/deliveries/{delivery_id}/redeliver 202 409",
        "PUT /v1/consumers/{consumer} 200 400 413 415 422",
        "PUT /v1/consumers/{consumer}/capability/instances/{instance_id} 200",
        "PUT /v1/consumers/{consumer}/runtime/facade-targets 200 422",
        "PUT /v1/consumers/{consumer}/secrets/{name} 204",
        "PUT /v1/consumers/{consumer}/tools/{name} 200 422",
      ]
    `);
  });
});
