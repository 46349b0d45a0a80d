import { accessLabel } from "../../../contracts/access";
import { EVENT_TYPES } from "../../../contracts/events";
import { PROBLEM_STATUS, RETRY_AFTER_CODES, type ProblemCode } from "../../../contracts/problem";
import { WEBHOOK_PAYLOADS } from "../../../contracts/webhook-payload";
import { componentSchemas, schemaId } from "./components";
import type { HeaderDoc, OperationDoc, ResponseDoc } from "./operation";

/**
 * The OpenAPI 3.1 document of the gate, built from the route declarations (../routes/registry.ts) and the
 * zod contracts by `npm run build:openapi` (tools/build-openapi.ts) into
 * assets/openapi.json, which the Worker serves as it is.
 * @module
 */

type Json = Record<string, unknown>;

const ref = (id: string): Json => ({ $ref: `#/components/schemas/${id}` });
const PROBLEM = { "application/problem+json": { schema: ref("ProblemDetails") } };

/** Headers and answers every operation shares, once under `components` (each use is a `$ref`). */
const SHARED_HEADERS: Json = {
  RetryAfter: {
    description: "Seconds to wait before sending again (RFC 9110 §10.2.3).",
    required: false,
    schema: { type: "integer", minimum: 0 },
  },
  WwwAuthenticate: {
    description:
      '`Bearer realm="toolgate"`; on the MCP endpoint `Bearer resource_metadata="…"` (RFC 9728), where an MCP client starts OAuth sign-in.',
    required: true,
    schema: { type: "string" },
  },
};

/** Problems the HTTP front answers before a request reaches the gate (npm start's local edge; Cloudflare's edge answers its own). */
const FRONT: readonly ProblemCode[] = ["MALFORMED_HTTP", "REQUEST_TIMEOUT", "HEADERS_TOO_LARGE"];

function headerObjects(headers: Readonly<Record<string, HeaderDoc>>): Json {
  const out: Json = {};
  for (const [name, h] of Object.entries(headers))
    out[name] = { description: h.description, required: h.required === true, schema: h.schema };
  return out;
}

function answer(doc: ResponseDoc, answerIds: Set<string>): Json {
  let content: Json | undefined;
  if (doc.schema !== undefined) {
    const id = schemaId(doc.schema);
    answerIds.add(id);
    content = { "application/json": { schema: ref(id) } };
  }
  if (doc.text !== undefined) content = { ...content, [doc.text]: { schema: { type: "string" } } };
  return {
    description: doc.description,
    ...(doc.headers === undefined ? {} : { headers: headerObjects(doc.headers) }),
    ...(content === undefined ? {} : { content }),
  };
}

/** `UNAUTHENTICATED` → `Unauthenticated`: a shared answer's name from its codes. */
const pascal = (code: string): string =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());

/**
 * The problem answers of an operation, one per status with the headers its codes send; each is
 * shared under `components/responses` (named by its codes) and referred to.
 */
function problemAnswers(codes: readonly ProblemCode[], schema: string, answerIds: Set<string>, shared: Json): Json {
  answerIds.add(schema);
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) byStatus.set(PROBLEM_STATUS[code], [...(byStatus.get(PROBLEM_STATUS[code]) ?? []), code]);
  const out: Json = {};
  for (const [status, group] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const name = `${schema === "ProblemDetails" ? "" : schema.replace(/Problem$/, "")}${group.map(pascal).join("Or")}`;
    const headers: Json = {};
    if (status === 401) headers["WWW-Authenticate"] = { $ref: "#/components/headers/WwwAuthenticate" };
    if (group.some((code) => RETRY_AFTER_CODES.has(code)))
      headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
    shared[name] ??= {
      description: `Problem: ${group.join(", ")}`,
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: { "application/problem+json": { schema: ref(schema) } },
    };
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  out["4XX"] = { $ref: "#/components/responses/FrontProblem" };
  out["default"] = { $ref: "#/components/responses/InternalProblem" };
  return out;
}

function parameters(op: OperationDoc): Json[] {
  const out: Json[] = [];
  for (const match of op.path.matchAll(/\{([a-z_]+)\}/g))
    out.push({ name: match[1], in: "path", required: true, schema: { type: "string" } });
  for (const [name, q] of Object.entries(op.query ?? {}))
    out.push({ name, in: "query", required: false, description: q.description, schema: q.schema });
  for (const [name, h] of Object.entries(op.headers ?? {}))
    out.push({ name, in: "header", required: false, description: h.description, schema: h.schema });
  return out;
}

function operationObject(op: OperationDoc, requestIds: Set<string>, answerIds: Set<string>, shared: Json): Json {
  const responses: Json = {};
  for (const doc of [...(op.response === undefined ? [] : [op.response]), ...(op.alsoResponses ?? [])])
    responses[String(doc.status)] = answer(doc, answerIds);
  Object.assign(
    responses,
    problemAnswers(
      op.problems,
      op.problemSchema === undefined ? "ProblemDetails" : schemaId(op.problemSchema),
      answerIds,
      shared,
    ),
  );
  const params = parameters(op);
  let requestBody: Json | undefined;
  if (op.request !== undefined) {
    const id = schemaId(op.request);
    requestIds.add(id);
    requestBody = { required: true, content: { [op.requestMedia ?? "application/json"]: { schema: ref(id) } } };
  }
  return {
    summary: op.summary,
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+/g, "_")}`,
    ...(op.operation === "none"
      ? { security: [] }
      : { security: [{ bearer: [] }], "x-toolgate-credential": accessLabel(op.operation) }),
    ...(params.length === 0 ? {} : { parameters: params }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses,
  };
}

/** The webhooks the gate sends (docs/webhooks.md): one per event type, signed per Standard Webhooks. */
function webhooks(answerIds: Set<string>): Json {
  const out: Json = {};
  for (const type of EVENT_TYPES) {
    const id = schemaId(WEBHOOK_PAYLOADS[type]);
    answerIds.add(id);
    out[type] = {
      post: {
        summary: `The \`${type}\` event, to each endpoint subscribed to it; verify \`webhook-signature\` over \`webhook-id.webhook-timestamp.body\` before trusting it.`,
        operationId: `webhook_${type.replace(".", "_")}`,
        security: [{ webhookSignature: [] }],
        requestBody: { required: true, content: { "application/json": { schema: ref(id) } } },
        responses: {
          "2XX": {
            description:
              "Delivered; any other answer, or none within 10 s, is retried with backoff (docs/webhooks.md).",
          },
        },
      },
    };
  }
  return out;
}

/** The OpenAPI 3.1 document. */
export function openApiDocument(operations: readonly OperationDoc[], version: string): Json {
  const requestIds = new Set<string>();
  const answerIds = new Set<string>(["ProblemDetails"]);
  const paths: Record<string, Json> = {};
  const shared: Json = {
    FrontProblem: {
      description: `Problem from the HTTP front, before the gate: ${FRONT.join(", ")}.`,
      content: PROBLEM,
    },
    InternalProblem: {
      description: "Problem: INTERNAL (500), or another status a later version adds.",
      content: PROBLEM,
    },
  };
  for (const op of operations) {
    if (op.documented === false) continue;
    paths[op.path] ??= {};
    (paths[op.path] as Json)[op.method] = operationObject(op, requestIds, answerIds, shared);
  }
  const hooks = webhooks(answerIds);
  return {
    openapi: "3.1.0",
    info: {
      title: "toolgate",
      version,
      description: "The trusted boundary between AI agents and their tools.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/" }],
    paths,
    webhooks: hooks,
    components: {
      schemas: componentSchemas(requestIds, answerIds),
      responses: Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b))),
      headers: SHARED_HEADERS,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "`tg_<kind>_<random>_<check>` consumer credentials, or the admin secret.",
        },
        webhookSignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Standard Webhooks: `v1,<base64 HMAC-SHA256>` under the endpoint's `whsec_` secret, over `webhook-id.webhook-timestamp.body` (docs/webhooks.md).",
        },
      },
    },
  };
}
