/**
 * The verifiable log's routes: its checkpoint, proofs, export and public keys. The export streams NDJSON in pages of the object's (`EXPORT_PAGE_LINES` lines per RPC
 * call): one line per entry, oldest first, then one line `{"checkpoint":"<signed note>"}` whose
 * checkpoint covers exactly those entries (docs/audit.md).
 * @module
 */
import { canonicalJson, readJson } from "../../../core/json";
import {
  AuditCheckpointView,
  AuditConsistencyView,
  AuditInclusionView,
  AuditVerifierKeys,
} from "../../../contracts/audit";
import { verifierKeys } from "./keys";
import type { Env } from "../../env";
import type { ObjectRpc } from "../../kernel/object-rpc";
import { EXPORT_PAGE_LINES } from "./log";
import { AuditConsistencyQuery, AuditInclusionQuery } from "../../../contracts/audit";
import { describeIssues } from "../../http/body";
import { problem, problemResponse } from "../../http/problem";
import { credentialToken } from "../../http/middleware";
import { respond } from "../../http/respond";
import { handlers, type Route } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

const encoder = new TextEncoder();

/** `GET …/audit/export`: the checkpoint first (signed if the tree grew), then the entries it covers, page by page. */
export async function auditExport(object: ObjectRpc, consumer: string, token: string): Promise<Response> {
  const head = await object.auditCall(consumer, token, { kind: "exportHead" });
  if (!head.ok) return problemResponse(head.error);
  const text = readJson(head.value, { maxBytes: 1 << 16 });
  const view = text.ok ? AuditCheckpointView.safeParse(text.value) : undefined;
  if (view === undefined || !view.success) throw new Error("the object answered a checkpoint out of its contract");
  const { size, checkpoint } = view.data;
  let after = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (after >= size) {
        controller.enqueue(encoder.encode(`${canonicalJson({ checkpoint })}\n`));
        controller.close();
        return;
      }
      const page = await object.auditCall(consumer, token, { kind: "exportPage", after, until: size });
      // A credential revoked mid-export ends the stream without its checkpoint line: the export is incomplete.
      if (!page.ok) return controller.error(new Error(page.error.code));
      after = Math.min(size, after + EXPORT_PAGE_LINES);
      controller.enqueue(encoder.encode(page.value));
    },
  });
  return new Response(body, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "toolgate-audit-entries": String(size) },
  });
}

/** `GET /v1/audit/verifier-keys` (public): the current verifier key, then the previous one. */
export function verifierKeysResponse(env: Env): Response {
  const keys = verifierKeys(env);
  if (keys.length === 0)
    return problemResponse(
      problem(
        "AUDIT_SIGNING_NOT_CONFIGURED",
        "This deployment sets no TOOLGATE_AUDIT_SIGNING_KEY: no checkpoint is signed.",
      ),
    );
  return new Response(canonicalJson({ keys }), { headers: { "content-type": "application/json" } });
}

const AUDITOR = ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"] as const;
const count = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

/** The verifiable log's routes (the audit module serves them with the chain's). */
export const auditLogRoutes: readonly Route[] = [
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit/checkpoint",
    summary: DOCS
      ? "The latest signed checkpoint of the consumer's Merkle log (a new one is signed first when the log grew)."
      : "",
    operation: "auditCheckpoint",
    auth: "credential",
    response: {
      status: 200,
      schema: AuditCheckpointView,
      description: DOCS ? "The tree size, its root (base64) and the C2SP signed note." : "",
    },
    problems: [...AUDITOR, "AUDIT_SIGNING_NOT_CONFIGURED", "AUDIT_LOG_INCONSISTENT"],
    handlers: handlers(async (c) =>
      respond(await c.var.object.auditCall(c.var.consumer, credentialToken(c.var.token), { kind: "checkpoint" })),
    ),
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit/proof/inclusion",
    summary: DOCS ? "RFC 9162 inclusion proof of entry seq in the tree of size entries." : "",
    operation: "auditInclusion",
    auth: "credential",
    query: {
      seq: {
        description: DOCS ? "The entry's sequence number (leaf seq − 1)." : "",
        schema: { type: "integer", minimum: 1 },
      },
      size: count("The tree size (default: the latest checkpoint's; seq ≤ size ≤ the log's size)."),
    },
    response: {
      status: 200,
      schema: AuditInclusionView,
      description: DOCS ? "The leaf index, tree size, leaf hash and audit path (base64)." : "",
    },
    problems: [...AUDITOR, "INVALID_REQUEST", "AUDIT_LOG_INCONSISTENT"],
    handlers: handlers(async (c) => {
      const query = AuditInclusionQuery.safeParse(c.req.query());
      if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
      return respond(
        await c.var.object.auditCall(c.var.consumer, credentialToken(c.var.token), {
          kind: "inclusion",
          ...query.data,
        }),
      );
    }),
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit/proof/consistency",
    summary: DOCS ? "RFC 9162 consistency proof between the trees of from and to entries." : "",
    operation: "auditConsistency",
    auth: "credential",
    query: { from: count("The older tree size."), to: count("The newer tree size (from ≤ to ≤ the log's size).") },
    response: {
      status: 200,
      schema: AuditConsistencyView,
      description: DOCS ? "The proof's hashes (base64); empty for from 0 or from = to." : "",
    },
    problems: [...AUDITOR, "INVALID_REQUEST"],
    handlers: handlers(async (c) => {
      const query = AuditConsistencyQuery.safeParse(c.req.query());
      if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
      return respond(
        await c.var.object.auditCall(c.var.consumer, credentialToken(c.var.token), {
          kind: "consistency",
          ...query.data,
        }),
      );
    }),
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit/export",
    summary: DOCS
      ? 'The whole log as NDJSON: one line per entry, then {"checkpoint": signed note} covering exactly those entries.'
      : "",
    operation: "auditExport",
    auth: "credential",
    response: {
      status: 200,
      text: "application/x-ndjson",
      description: DOCS ? "One AuditEntry per line, then the checkpoint line." : "",
      headers: {
        "Toolgate-Audit-Entries": {
          description: DOCS ? "The number of entry lines." : "",
          schema: { type: "integer", minimum: 0 },
          required: true,
        },
      },
    },
    problems: [...AUDITOR, "AUDIT_SIGNING_NOT_CONFIGURED", "AUDIT_LOG_INCONSISTENT"],
    handlers: handlers((c) => auditExport(c.var.object, c.var.consumer, credentialToken(c.var.token))),
  },
  {
    method: "get",
    path: "/v1/audit/verifier-keys",
    summary: DOCS
      ? "The C2SP verifier keys of the checkpoints: the current key, then the previous one during a rotation."
      : "",
    operation: "none",
    cors: "public",
    response: { status: 200, schema: AuditVerifierKeys, description: DOCS ? '`{"keys": [...]}`.' : "" },
    problems: ["AUDIT_SIGNING_NOT_CONFIGURED"],
    handlers: handlers((c) => verifierKeysResponse(c.env)),
  },
];
