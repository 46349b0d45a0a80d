import * as z from "zod";
import { accessLabel, type Operation } from "../contracts/access";
import { httpSchemas } from "../contracts/registry";
import { PROBLEM_STATUS, type ProblemCode } from "./problem";

/** One documented operation; each route module lists its own. */
export interface OperationDoc {
  readonly method: "get" | "put" | "post" | "delete";
  /** OpenAPI path template, e.g. `/v1/consumers/{consumer}`. */
  readonly path: string;
  readonly summary: string;
  /** The operation in the access table (who may call it), or `none` for a public route. */
  readonly operation: Operation | "none";
  readonly request?: z.ZodType;
  readonly response?: { readonly status: number; readonly schema?: z.ZodType; readonly description: string };
  readonly query?: Readonly<Record<string, { readonly description: string; readonly schema: Record<string, unknown> }>>;
  /** Request headers the operation reads (never `Authorization`: the security scheme documents it). */
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: Record<string, unknown> }>>;
  readonly problems: readonly ProblemCode[];
}

function ref(schema: z.ZodType): Record<string, unknown> {
  const meta = httpSchemas.get(schema);
  if (meta === undefined) throw new Error("every documented schema is registered in httpSchemas");
  return { $ref: `#/components/schemas/${meta.id}` };
}

/** The OpenAPI 3.1 document, generated from the zod contracts (`z.toJSONSchema`). */
export function openApiDocument(operations: readonly OperationDoc[], version: string): Record<string, unknown> {
  const generated = z.toJSONSchema(httpSchemas, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: "any" });
  const schemas: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(generated.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    schemas[id] = rest;
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [];
    for (const match of op.path.matchAll(/\{([a-z_]+)\}/g)) {
      parameters.push({ name: match[1], in: "path", required: true, schema: { type: "string" } });
    }
    for (const [name, q] of Object.entries(op.query ?? {})) {
      parameters.push({ name, in: "query", required: false, description: q.description, schema: q.schema });
    }
    for (const [name, h] of Object.entries(op.headers ?? {})) {
      parameters.push({ name, in: "header", required: false, description: h.description, schema: h.schema });
    }
    const responses: Record<string, unknown> = {};
    if (op.response !== undefined) {
      responses[String(op.response.status)] = {
        description: op.response.description,
        ...(op.response.schema === undefined ? {} : { content: { "application/json": { schema: ref(op.response.schema) } } }),
      };
    }
    const byStatus = new Map<number, ProblemCode[]>();
    for (const code of op.problems) byStatus.set(PROBLEM_STATUS[code], [...(byStatus.get(PROBLEM_STATUS[code]) ?? []), code]);
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(status)] = {
        description: `Problem: ${codes.join(", ")}`,
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/ProblemDetails" } } },
      };
    }
    paths[op.path] ??= {};
    (paths[op.path] as Record<string, unknown>)[op.method] = {
      summary: op.summary,
      operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+/g, "_")}`,
      ...(op.operation === "none" ? { security: [] } : { security: [{ bearer: [] }], "x-toolgate-credential": accessLabel(op.operation) }),
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(op.request === undefined ? {} : { requestBody: { required: true, content: { "application/json": { schema: ref(op.request) } } } }),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "toolgate", version, description: "The trusted boundary between AI agents and their tools." },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "`tg_<kind>_<random>_<check>` consumer credentials, or the admin secret." } },
    },
  };
}
