import * as z from "../core/zod";
import { httpSchemas, JsonObjectValue } from "./registry";
import { DOCS } from "./docs";

/**
 * Every tool name of the gate (data tools, code tools, imported MCP tools, facade targets): the
 * model sees it, so it is short and plain (OpenAI, Anthropic and Gemini all accept it).
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
export const ToolName = z.deferred(() => z.string().check(z.regex(TOOL_NAME_PATTERN)));

/** A consumer secret's name (`PUT …/secrets/{name}`). */
export const SECRET_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const SecretName = z.deferred(() => z.string().check(z.regex(SECRET_NAME_PATTERN)));

const HeaderName = z.deferred(() => z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/)));
const HeaderValue = z.deferred(() => z.string().check(z.maxLength(1024), z.regex(/^[\t\x20-\x7e]*$/)));
const CelSource = z.deferred(() => z.string().check(z.minLength(1), z.maxLength(2048)));

/** A text sent before a secret's value (`Bearer `): printable ASCII, at most 64 characters. */
const secretPrefix = () => z.string().check(z.maxLength(64), z.regex(/^[\x20-\x7e]*$/));

/**
 * Where a data-defined tool runs: an HTTP endpoint of the consumer's. `status_url` and
 * `fence_url` take `{status_ref}`: the write's status reference (`status_` + 32 hex), which
 * the gate also sends as the write's `Idempotency-Key` (docs/tools.md).
 */
export const HttpTarget = z.deferred(() =>
  z
    .strictObject({
      kind: z.literal("http"),
      url: z.url().check(z.maxLength(2048)),
      method: z._default(z.enum(["POST", "PUT"]), "POST"),
      headers: z._default(z.record(HeaderName, HeaderValue), {}),
      secret_headers: z
        ._default(
          z.record(HeaderName, z.strictObject({ secret: SecretName, prefix: z._default(secretPrefix(), "") })),
          {},
        )
        .check(
          z.meta({
            description: DOCS
              ? "Headers whose value is a consumer secret (write-only), optionally after a prefix such as `Bearer `."
              : "",
          }),
        ),
      status_url: z.optional(z.url().check(z.maxLength(2048))),
      fence_url: z.optional(z.url().check(z.maxLength(2048))),
      max_response_bytes: z._default(z.int().check(z.gte(256), z.lte(1_048_576)), 65_536),
    })
    .check(
      z.refine((t) => (t.status_url === undefined) === (t.fence_url === undefined), {
        error: "give both status_url and fence_url, or neither",
        path: ["status_url"],
      }),
    )
    .register(httpSchemas, { id: "HttpTarget" }),
);

/** A consumer secret sent as `Authorization` to an MCP server, after a prefix (`Bearer ` unless given). */
export const McpAuth = z.deferred(() =>
  z
    .strictObject({ secret: SecretName, prefix: z._default(secretPrefix(), "Bearer ") })
    .register(httpSchemas, { id: "McpAuth" }),
);

/**
 * Where a data-defined tool runs: a tool of an MCP server (Streamable HTTP), called with
 * `tools/call`; usually written by `POST …/mcp-servers` (docs/tools.md, "MCP targets").
 */
export const McpTarget = z.deferred(() =>
  z
    .strictObject({
      kind: z.literal("mcp"),
      url: z
        .url()
        .check(z.maxLength(2048), z.meta({ description: DOCS ? "The server's Streamable HTTP endpoint." : "" })),
      tool: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(128),
          z.meta({ description: DOCS ? "The tool's name on that server." : "" }),
        ),
      auth: z.optional(McpAuth),
      max_response_bytes: z._default(z.int().check(z.gte(256), z.lte(1_048_576)), 262_144),
    })
    .register(httpSchemas, { id: "McpTarget" }),
);

/** The output contract of a data-defined tool. */
export const ToolOutput = z.deferred(() =>
  z
    .strictObject({
      schema: JsonObjectValue.check(
        z.meta({ description: DOCS ? "A JSON Schema of the supported subset (docs/tools.md)." : "" }),
      ),
      bound_to_arguments: z
        ._default(
          z.record(
            z.string().check(z.minLength(1), z.maxLength(64)),
            z.string().check(z.minLength(1), z.maxLength(64)),
          ),
          {},
        )
        .check(
          z.meta({
            description: DOCS
              ? "Output fields that must equal the argument of the given name (a result about another resource is refused)."
              : "",
          }),
        ),
      max_bytes: z._default(z.int().check(z.gte(16), z.lte(1_048_576)), 16_384),
      max_depth: z._default(z.int().check(z.gte(1), z.lte(16)), 8),
    })
    .register(httpSchemas, { id: "ToolOutput" }),
);

/**
 * Rules published beside the enforced ones: every call evaluates them too, but only the enforced
 * rules decide; each disagreement is counted and kept (docs/approvals.md, "Policies in shadow").
 * A rule left out is the enforced one. Not part of the policy revision: changing the shadow never
 * changes the revisions approvals and idempotency records are bound to.
 */
export const ShadowRules = z.deferred(() =>
  z
    .strictObject({
      authorize: z.optional(CelSource),
      approval: z.optional(z.union([z.enum(["always", "never"]), CelSource])),
    })
    .check(
      z.meta({
        description: DOCS
          ? "Candidate `authorize` and `approval` rules evaluated beside the enforced ones without deciding; a rule left out is the enforced one."
          : "",
      }),
    )
    .register(httpSchemas, { id: "ShadowRules" }),
);

/** `PUT /v1/consumers/{consumer}/tools/{name}`: one tool as data. */
export const ToolDefinition = z.deferred(() =>
  z
    .strictObject({
      description: z.string().check(z.minLength(1), z.maxLength(1024)),
      risk: z.enum(["read", "write"]),
      timeout_ms: z._default(z.int().check(z.gte(100), z.lte(30_000)), 5_000),
      input: JsonObjectValue.check(
        z.meta({ description: DOCS ? "A JSON Schema of the supported subset: an object schema (docs/tools.md)." : "" }),
      ),
      output: ToolOutput,
      authorize: z._default(CelSource, "true").check(
        z.meta({
          description: DOCS ? "CEL over principal, args, tool, consumer, now; false answers NOT_FOUND." : "",
        }),
      ),
      approval: z.optional(z.union([z.enum(["always", "never"]), CelSource])).check(
        z.meta({
          description: DOCS
            ? "Writes: `always` (the default), `never`, or a CEL rule deciding whether this call needs a human. Reads never need one."
            : "",
        }),
      ),
      approval_valid_seconds: z.optional(z.int().check(z.gte(1), z.lte(3600))).check(
        z.meta({
          description: DOCS
            ? "Writes: seconds an approval stays valid for the repeated call, from the decision (60 when absent, the reference's window)."
            : "",
        }),
      ),
      confirmed_by: z.optional(z.enum(["approvers", "end_user"])).check(
        z.meta({
          description: DOCS
            ? "Writes only (on a read: 422 INVALID_TOOL_DEFINITION at /confirmed_by): who confirms a call that needs a human. `approvers` (the default): the consumer's approver_subjects. `end_user`: the requesting end user, in the agent's chat, proven by the same verified principal token the call carried; the consumer's approvers may still deny. A call without a verified end-user token falls back to the approvers (docs/approvals.md, \"Who decides\")."
            : "",
        }),
      ),
      target: z.discriminatedUnion("kind", [HttpTarget, McpTarget]),
      shadow: z.optional(ShadowRules),
    })
    .check(
      z.refine((d) => d.risk === "write" || d.approval === undefined || d.approval === "never", {
        error: "a read never needs approval",
        path: ["approval"],
      }),
      z.refine((d) => d.risk === "write" || d.shadow?.approval === undefined || d.shadow.approval === "never", {
        error: "a read never needs approval",
        path: ["shadow", "approval"],
      }),
    )
    .register(httpSchemas, { id: "ToolDefinition" }),
);

/** `PUT /v1/consumers/{consumer}/secrets/{name}`: a write-only value, never returned. */
export const SecretValue = z.deferred(() =>
  z
    .strictObject({ value: z.string().check(z.minLength(1), z.maxLength(4096)) })
    .register(httpSchemas, { id: "SecretValue" }),
);

/** A stored version of a tool, as the admin sees it. */
export const ToolVersionView = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      version: z.int(),
      definition: z.record(z.string(), z.unknown()),
      revisions: z.record(z.string(), z.string()),
      defined_at: z.int(),
    })
    .register(httpSchemas, { id: "ToolVersion" }),
);

/** Parsed definition. */
export type ToolDefinition = z.output<typeof ToolDefinition>;
/** Parsed shadow rules. */
export type ShadowRules = z.output<typeof ShadowRules>;
/** Parsed HTTP target. */
export type HttpTarget = z.output<typeof HttpTarget>;
/** Parsed MCP target. */
export type McpTarget = z.output<typeof McpTarget>;
/** Either kind of target. */
export type ToolTarget = HttpTarget | McpTarget;
