/**
 * `defineTool({ name, description, input, output, execute })`: a tool written as code at the AI
 * SDK's weight. Input and output are Standard Schemas (zod 4), converted once into the gate's JSON
 * Schema subset; the revisions are digests of the definition; the handler may do I/O and runs
 * between the engine's two steps (./executor.ts).
 * @module
 */
import { canonicalJson, sha256Hex, type JsonObject } from "../../../core/json";
import type { SchemaCheck, ToolContext, ToolSpec } from "../../../core/tool-result/tool-spec";
import { defineTool as defineCoreTool } from "../../../core/tool-result/tool-spec";
import type { Principal } from "../../../core/tool-result/types";
import type { Env } from "../../env";
import { registerRunner, type CheckedOutput, type ToolRunContext } from "./runner";
import {
  describeIssues,
  gateSchema,
  isJsonObject,
  refinementProblem,
  validateNow,
  type InferInput,
  type InferOutput,
  type StandardSchema,
} from "./standard-schema";

/** What `authorize` and `needsApproval` consult besides the parsed arguments. */
export interface PolicyContext {
  /** The verified principal the call acts for. */
  readonly principal: Principal;
  /** The verified claims of an end user's token (`{}` without one). */
  readonly claims: JsonObject;
  /** The dispatch's time (Unix seconds). */
  readonly now: number;
}

/** What a write's `status` found out: it committed (with the data it produced), never ran, or cannot tell. */
export type ToolStatus<T> =
  | { readonly state: "committed"; readonly data: T }
  | { readonly state: "not_executed" }
  | { readonly state: "unknown" };

/** A tool written as code with Standard Schemas (see {@link defineSchemaTool}). */
export interface SchemaToolSpec<I extends StandardSchema, O extends StandardSchema, E extends object = Env> {
  /** The tool's name (`^[a-zA-Z0-9_-]{1,64}$`), unique in the gate. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The arguments: an object schema inside the gate's JSON Schema subset (docs/tools.md). */
  readonly input: I;
  /** The data the tool answers: an object schema, checked before anything is answered. */
  readonly output: O;
  /** Default: `"write"` when `needsApproval` is given (and not `false`), else `"read"`. */
  readonly risk?: "read" | "write";
  /**
   * Whether a write waits for a human: `true` (the default of a write), `false`, or a
   * deterministic function of the parsed arguments and the principal (called in the engine's
   * first step, and again when the approved call is repeated).
   */
  readonly needsApproval?: boolean | ((args: InferOutput<I>, ctx: PolicyContext) => boolean);
  /** Resource check (default: every caller of the consumer); false answers NOT_FOUND. */
  readonly authorize?: (args: InferOutput<I>, ctx: PolicyContext) => boolean;
  /** The handler: may return a promise; its data must satisfy `output`. */
  readonly execute: (args: InferOutput<I>, ctx: ToolRunContext<E>) => InferInput<O> | Promise<InferInput<O>>;
  /** Asks what became of a write whose outcome is unknown (the status endpoint); `ctx.idempotencyKey` is its key. */
  readonly status?: (args: InferOutput<I>, ctx: ToolRunContext<E>) => Promise<ToolStatus<InferInput<O>>>;
  /** The handler's deadline (default 10,000 ms): its `signal` aborts then. */
  readonly timeoutMs?: number;
  /** Largest canonical output (default 16,384 bytes). */
  readonly maxOutputBytes?: number;
  /** Seconds an approval stays valid for the repeated call (default the gate's 60). */
  readonly approvalValidSeconds?: number;
  /**
   * Who confirms a write that needs a human: `"approvers"` (the default), the consumer's
   * approvers; `"end_user"`, the requesting end user in the agent's chat, proven by the verified
   * principal token the call carried (the approvers may still deny; a call without such a token
   * falls back to them). Only a write sets it (docs/approvals.md, "Who decides").
   */
  readonly confirmedBy?: "approvers" | "end_user";
  /** Joins every revision: change it to mark a change of behaviour the code's text does not show. */
  readonly revision?: string;
}

/** `part-` and the first 16 hex digits of the SHA-256 of the value's canonical JSON. */
function revision(part: string, value: JsonObject): string {
  return `${part}-${sha256Hex(canonicalJson(value)).slice(0, 16)}`;
}

/** A function's text, for the revisions (a change of code is a change of revision). */
function source(fn: unknown): string {
  return typeof fn === "function" ? Function.prototype.toString.call(fn) : String(fn);
}

/** The untyped view of a spec the implementation works with (the methods are bivariant: see `CodeRunner`). */
interface Erased {
  execute(args: unknown, ctx: ToolRunContext<object>): unknown;
  status?(args: unknown, ctx: ToolRunContext<object>): Promise<ToolStatus<unknown>>;
}

/**
 * Builds the registry entry and the runner of a {@link SchemaToolSpec}. Throws a `TypeError`
 * when a schema is outside the subset (naming its JSON pointer) or the risk contradicts `needsApproval`.
 */
export function defineSchemaTool<I extends StandardSchema, O extends StandardSchema, E extends object>(
  spec: SchemaToolSpec<I, O, E>,
): ToolSpec {
  const { name, input, output } = spec;
  const risk = spec.risk ?? (spec.needsApproval === undefined || spec.needsApproval === false ? "read" : "write");
  if (risk === "read" && spec.needsApproval !== undefined && spec.needsApproval !== false)
    throw new TypeError(`defineTool ${name}: a read never waits for approval; drop needsApproval or say risk: "write"`);
  if (risk === "read" && spec.confirmedBy !== undefined)
    throw new TypeError(`defineTool ${name}: a read has no approval to confirm; drop confirmedBy or say risk: "write"`);
  const endUser = spec.confirmedBy === "end_user";
  const inputCheck = gateSchema(input, "input", name);
  const outputCheck = gateSchema(output, "output", name);
  const parse = (args: JsonObject): InferOutput<I> => {
    const parsed = validateNow(input, args);
    // The engine validated these arguments with the same schema before anything reads them.
    if (parsed.issues !== undefined) throw new Error(`defineTool ${name}: validated arguments no longer parse`);
    return parsed.value;
  };
  const policy = (principal: Principal, ctx: ToolContext): PolicyContext => ({
    principal,
    claims: ctx.claims ?? {},
    now: ctx.now ?? 0,
  });
  const inputSchema: SchemaCheck = {
    document: inputCheck.document,
    // The subset first (bounded, refuses hostile shapes), then the schema's own rules (refinements).
    validate: (value) => inputCheck.validate(value) && validateNow(input, value).issues === undefined,
    // The subset names what its rules expected; a refinement of the schema's own is named by its
    // path only (its message may echo the refused value, so it is the operator's, never the model's).
    describe: (value) => inputCheck.describe(value) ?? refinementProblem(validateNow(input, value).issues),
  };
  const rev = spec.revision ?? "";
  const timeoutMs = spec.timeoutMs ?? 10_000;
  const approval = spec.needsApproval;
  const approvalRule = typeof approval === "function" ? approval : undefined;
  const handler = revision("handler", {
    execute: source(spec.execute),
    status: source(spec.status),
    timeout_ms: timeoutMs,
    revision: rev,
  });
  const tool = defineCoreTool({
    name,
    description: spec.description,
    risk,
    inputSchemaRevision: revision("input", inputCheck.document),
    policyRevision: revision("policy", {
      risk,
      authorize: source(spec.authorize),
      approval: source(approval),
      approval_valid_seconds: spec.approvalValidSeconds ?? null,
      revision: rev,
      // Joins only when it is the end user: tools without it keep their revisions.
      ...(endUser ? { confirmed_by: "end_user" } : {}),
    }),
    arguments: {},
    inputSchema,
    outputSchemaRevision: revision("output", outputCheck.document),
    output: {},
    outputSchema: outputCheck,
    maxOutputBytes: spec.maxOutputBytes ?? 16_384,
    maxOutputDepth: 8,
    effectRevision: revision("effect", { name, risk, execute: source(spec.execute), revision: rev }),
    handlerRevision: handler,
    producerLabel: name,
    producerRevision: handler,
    // The embedder's own tool: its INVALID_ARGUMENTS says where and what was expected.
    explainsArguments: true,
    timeoutMs,
    authorize: (principal, args, ctx) => spec.authorize?.(parse(args), policy(principal, ctx)) ?? true,
    ...(approval === false ? { needsApproval: () => false } : {}),
    ...(approvalRule === undefined
      ? {}
      : {
          needsApproval: (principal: Principal, args: JsonObject, ctx: ToolContext) =>
            approvalRule(parse(args), policy(principal, ctx)),
        }),
    ...(spec.approvalValidSeconds === undefined ? {} : { approvalValidSeconds: spec.approvalValidSeconds }),
    ...(endUser ? { confirmedBy: "end_user" as const } : {}),
    execution: { kind: "external" },
  });
  const checkOutput = async (value: unknown): Promise<CheckedOutput> => {
    const checked = await output["~standard"].validate(value);
    if (checked.issues !== undefined) return { ok: false, cause: describeIssues(checked.issues) };
    return isJsonObject(checked.value)
      ? { ok: true, data: checked.value }
      : { ok: false, cause: "the output is not a JSON object" };
  };
  const erased: Erased = spec;
  const status = erased.status;
  registerRunner(tool, {
    execute: async (args, ctx) => checkOutput(await erased.execute(parse(args), ctx)),
    ...(status === undefined
      ? {}
      : {
          status: async (args, ctx) => {
            const found = await status(parse(args), ctx);
            return found.state === "committed" ? { state: "committed", output: await checkOutput(found.data) } : found;
          },
        }),
  });
  return tool;
}
