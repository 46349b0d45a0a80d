/**
 * The gate of the framework black-box tests: `wrangler dev` on loopback with one consumer whose
 * two HTTP tools call a loopback ledger that records what it receives: `lookup_customer` (a
 * read answering tier "gold") and `create_invoice` (a write answering `INV-<n>`, n counting the
 * invoices received, with the invoice's own customer and amount). Every answer is observed at
 * {@link OBSERVED_AT}. With an end user's issuer, a third tool, `confirm_invoice` (the same write,
 * every call confirmed by its requesting end user in chat: `confirmed_by: "end_user"`), and the
 * consumer's `principal_tokens`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { expect } from "vitest";
import { startDev, type DevServer } from "./wrangler-dev";

/** The `observed_at` of every ledger answer. */
export const OBSERVED_AT = "2026-07-18T00:00:00Z";

const CUSTOMER = { type: "string", minLength: 1, maxLength: 8 };

/** What differs between the tests' `create_invoice`: its description, an approval rule, a memo field. */
export interface InvoiceTool {
  readonly description: string;
  readonly approval?: string;
  readonly memo?: boolean;
}

/** The two tools' definitions, their targets on the ledger at `port`. */
export function ledgerTools(port: number, invoice: InvoiceTool): Record<string, Record<string, unknown>> {
  return {
    lookup_customer: {
      description: "Look up a customer's tier.",
      risk: "read",
      input: {
        type: "object",
        properties: { customer: CUSTOMER },
        required: ["customer"],
        additionalProperties: false,
      },
      output: {
        schema: {
          type: "object",
          properties: { customer: { type: "string" }, tier: { type: "string" } },
          required: ["customer", "tier"],
          additionalProperties: false,
        },
      },
      target: { kind: "http", url: `http://127.0.0.1:${port}/ledger/lookup` },
    },
    create_invoice: {
      description: invoice.description,
      risk: "write",
      ...(invoice.approval === undefined ? {} : { approval: invoice.approval }),
      input: {
        type: "object",
        properties: {
          customer: CUSTOMER,
          amount: { type: "integer", minimum: 1, maximum: 100_000 },
          ...(invoice.memo === true ? { memo: { type: "string", maxLength: 40 } } : {}),
        },
        required: ["customer", "amount"],
        additionalProperties: false,
      },
      output: {
        schema: {
          type: "object",
          properties: { invoice_id: { type: "string" }, customer: { type: "string" }, amount: { type: "integer" } },
          required: ["invoice_id", "customer", "amount"],
          additionalProperties: false,
        },
      },
      target: { kind: "http", url: `http://127.0.0.1:${port}/ledger/invoices` },
    },
  };
}

/** The end users' token issuer of the consumer (`principal_tokens`, an inline JWKS). */
export interface EndUserIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly jwks: { readonly keys: readonly Record<string, unknown>[] };
}

/** A chat's end-user sign-in: the issuer the consumer trusts and the tokens it signs (ES256, valid 1 h). */
export interface ChatSignIn {
  readonly issuer: EndUserIssuer;
  token(subject: string): Promise<string>;
}

/** A fresh ES256 key whose public half the consumer's `principal_tokens` carry, for `audience`. */
export async function chatSignIn(audience: string): Promise<ChatSignIn> {
  const keys = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "chat-1", alg: "ES256" };
  const issuer = "https://login.example.test/";
  return {
    issuer: { issuer, audience, jwks: { keys: [jwk] } },
    token: (subject) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ sub: subject })
        .setProtectedHeader({ alg: "ES256", kid: "chat-1" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(keys.privateKey);
    },
  };
}

/** `confirm_invoice`: `create_invoice` whose every call its requesting end user confirms in chat. */
function confirmTool(port: number): Record<string, unknown> {
  const invoice = ledgerTools(port, { description: "" })["create_invoice"];
  return { ...invoice, description: "Create an invoice; the end user confirms it in chat.", confirmed_by: "end_user" };
}

/** An answer of the gate: its status and JSON body (`{}` when empty). */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A running ledger gate. */
export interface LedgerGate {
  readonly dev: DevServer;
  /** What the ledger received: `<path> <body>`, in order. */
  readonly received: string[];
  /** The invoices among them. */
  invoices(): string[];
  /** Each tool's handler revision (its results' `producer_revision`), from its definition's answer. */
  readonly handlerRevision: ReadonlyMap<string, string>;
  /** A call of the consumer's API: `path` below `/v1/consumers/<consumer>`. */
  request(method: string, path: string, token: string, body?: unknown): Promise<Answer>;
  /** A new credential's secret; `tools`: its tool scope. */
  secret(kind: "agent" | "approver", subjectId: string, tools?: readonly string[]): Promise<string>;
  /** A new token-verified agent credential's secret (each call carries the end user's JWT), scoped to `tools`. */
  tokenAgent(tools: readonly string[]): Promise<string>;
  /** Stops `wrangler dev` and the ledger, and removes the persistence folder. */
  close(): Promise<void>;
}

/** Starts the ledger and the gate, and defines `consumer` with the two tools and `reviewer` as its approver. */
export async function startLedgerGate(
  consumer: string,
  reviewer: string,
  invoice: InvoiceTool,
  endUser?: EndUserIssuer,
): Promise<LedgerGate> {
  const received: string[] = [];
  const invoices = (): string[] => received.filter((r) => r.startsWith("/ledger/invoices "));
  const ledger = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      received.push(`${req.url ?? ""} ${text}`);
      // The gate's own request body, in a test of the gate.
      const args = JSON.parse(text) as { customer: string; amount?: number };
      const lookup = req.url === "/ledger/lookup";
      const data = lookup
        ? { customer: args.customer, tier: "gold" }
        : { invoice_id: `INV-${invoices().length}`, customer: args.customer, amount: args.amount };
      res
        .writeHead(lookup ? 200 : 201, { "content-type": "application/json" })
        .end(JSON.stringify({ data, resource_revision: null, observed_at: OBSERVED_AT }));
    });
  });
  await new Promise<void>((done) => ledger.listen(0, "127.0.0.1", done));
  const address = ledger.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const admin = randomBytes(24).toString("base64url");
  const persistTo = mkdtempSync(join(tmpdir(), `toolgate-${consumer}-`));
  const dev = await startDev(persistTo, admin, { vars: { TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" } });

  const request = async (method: string, path: string, token: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${dev.base}/v1/consumers/${consumer}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };
  const handlerRevision = new Map<string, string>();
  const config = {
    approver_subjects: [reviewer],
    ...(endUser === undefined ? {} : { principal_tokens: endUser }),
  };
  expect((await request("PUT", "", admin, { tools: [], ...config })).status).toBe(200);
  const definitions = {
    ...ledgerTools(port, invoice),
    ...(endUser === undefined ? {} : { confirm_invoice: confirmTool(port) }),
  };
  for (const [name, definition] of Object.entries(definitions)) {
    const defined = await request("PUT", `/tools/${name}`, admin, definition);
    expect(defined.status).toBe(200);
    const revisions = defined.body["revisions"] as { handler: string };
    handlerRevision.set(name, revisions.handler);
  }
  const tools = Object.keys(definitions);
  expect((await request("PUT", "", admin, { tools, ...config })).status).toBe(200);

  return {
    dev,
    received,
    invoices,
    handlerRevision,
    request,
    async secret(kind, subjectId, tools) {
      const scope = tools === undefined ? {} : { tools: [...tools] };
      const made = await request("POST", "/credentials", admin, { kind, subject_id: subjectId, ...scope });
      return made.body["secret"] as string;
    },
    async tokenAgent(tools) {
      const made = await request("POST", "/credentials", admin, {
        kind: "agent",
        principal: "token",
        tools: [...tools],
      });
      expect(made.status).toBe(201);
      return made.body["secret"] as string;
    },
    async close() {
      await dev.kill();
      await new Promise((done) => ledger.close(done));
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
}
