/**
 * A tool as data → the engine's tool: the schema subset compiled, the CEL rules compiled, the
 * revisions derived from the canonical digest of each part (so a changed contract has new
 * revisions, and approvals and idempotency records of the old one no longer match).
 * @module
 */
import { canonicalJson, sha256Hex, type Json, type JsonObject } from "../../../core/json";
import { compileSchema } from "../../../core/tool-schema";
import {
  defineTool,
  type OutputRule,
  type RuleType,
  type ToolContext,
  type ToolSpec,
} from "../../../core/tool-result/tool-spec";
import type { Principal } from "../../../core/tool-result/types";
import type { HttpTarget, ToolDefinition, ToolTarget } from "../../../contracts/tool-definition";
import { err, ok, type Result } from "../../../core/result";
import { policyLanguage } from "../../kernel/policy-language";
import { hostRefusal } from "../../targets/host";
import { admits, asksHuman, compileRules, type DefinitionRefusal, type RuleInput, type ToolRules } from "./rules";

export type { DefinitionRefusal } from "./rules";

/** A tool's shadow rules, compiled, and their revision (a rule left out is the enforced one). */
export interface ShadowPolicy {
  readonly rules: ToolRules;
  readonly revision: string;
}

/** A data-defined tool ready for the registry: its engine spec and where it runs. */
export interface BuiltTool {
  readonly spec: ToolSpec;
  readonly target: ToolTarget;
  /** The revision of each part, shown with every stored version. */
  readonly revisions: Readonly<Record<string, string>>;
  /** The enforced rules (the spec's authorize and needsApproval evaluate them). */
  readonly rules: ToolRules;
  /** The shadow rules, when the definition publishes any: evaluated beside, never deciding. */
  readonly shadow: ShadowPolicy | null;
}

/** Where targets may point: `https` always; loopback `http` only when the Worker allows it (`npm start`). */
export interface TargetPolicy {
  readonly allowLoopback: boolean;
}

function revision(part: string, value: unknown): string {
  return `${part}-${sha256Hex(canonicalJson(value)).slice(0, 16)}`;
}

/** Headers the gate sets on every target request itself; a target may not set them. */
export const GATE_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "content-digest",
  "host",
  "idempotency-key",
  "signature",
  "signature-input",
  "toolgate-identity",
]);

function checkHeaders(target: HttpTarget): DefinitionRefusal | null {
  for (const [group, headers] of [
    ["headers", target.headers],
    ["secret_headers", target.secret_headers],
  ] as const) {
    for (const name of Object.keys(headers)) {
      if (GATE_HEADERS.has(name.toLowerCase()))
        return { pointer: `/target/${group}/${name}`, message: `the gate sets ${name.toLowerCase()} itself` };
    }
  }
  const lower = [...Object.keys(target.headers), ...Object.keys(target.secret_headers)].map((n) => n.toLowerCase());
  const twice = lower.find((name, i) => lower.indexOf(name) !== i);
  return twice === undefined ? null : { pointer: "/target/headers", message: `the header ${twice} is given twice` };
}

/**
 * Whether a URL may be a target under `policy`: https to a public host, never with credentials;
 * a host that is a private, loopback, link-local or otherwise non-public literal, or `localhost`,
 * is refused (`hostRefusal`), except a loopback host where the Worker allows it (`npm start`),
 * over http or https. The one rule: definitions pass it, and every request to a target again
 * right before it is sent (`targetFetch`).
 */
export function checkUrl(url: string, pointer: string, policy: TargetPolicy): DefinitionRefusal | null {
  const parsed = new URL(url);
  if (parsed.username !== "" || parsed.password !== "")
    return { pointer, message: "a target URL carries no credentials (use secret_headers or auth)" };
  const host = hostRefusal(parsed.hostname);
  const local = host !== null && host.loopback && policy.allowLoopback;
  if (host !== null && !local) {
    const unless = policy.allowLoopback ? " (only loopback is allowed under npm start)" : "";
    return {
      pointer,
      message: `a target URL may not name a private, loopback or link-local address: ${parsed.hostname} is ${host.what}${unless}`,
    };
  }
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol === "http:" && local) return null;
  return {
    pointer,
    message: policy.allowLoopback
      ? "a target URL is https (or loopback http under npm start)"
      : "a target URL is https",
  };
}

const RULE_TYPES: Readonly<Record<string, RuleType>> = { string: "str", integer: "int", boolean: "bool" };

/** The scalar type of a top-level property of an object schema, or `undefined`. */
function propertyType(schema: JsonObject, name: string): string | undefined {
  const properties = schema["properties"];
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return undefined;
  const property = (properties as JsonObject)[name];
  if (typeof property !== "object" || property === null || Array.isArray(property)) return undefined;
  const type = (property as JsonObject)["type"];
  return typeof type === "string" ? type : undefined;
}

function boundRules(definition: ToolDefinition): Result<Record<string, OutputRule>, DefinitionRefusal> {
  const rules: Record<string, OutputRule> = {};
  for (const [field, argument] of Object.entries(definition.output.bound_to_arguments)) {
    const pointer = `/output/bound_to_arguments/${field.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    const outputType = propertyType(definition.output.schema as JsonObject, field);
    const inputType = propertyType(definition.input as JsonObject, argument);
    const type = outputType === undefined ? undefined : RULE_TYPES[outputType];
    if (type === undefined || outputType !== inputType) {
      return err({
        pointer,
        message: "a bound field and its argument are top-level properties of the same string, integer or boolean type",
      });
    }
    rules[field] = { type, equalsArgument: argument };
  }
  return ok(rules);
}

/**
 * The rules of a definition that compiles, type-checked against its input schema (`args.amout`,
 * a string argument compared with a number). Only a new definition is held to it: a stored one
 * accepted before keeps building (its rule still denies at run time where it errs).
 */
export function checkRuleTypes(definition: ToolDefinition): DefinitionRefusal | null {
  const input = definition.input as JsonObject;
  const rules: Array<[string, string]> = [["/authorize", definition.authorize]];
  const approval = definition.risk === "write" ? definition.approval : undefined;
  if (approval !== undefined && approval !== "always" && approval !== "never") rules.push(["/approval", approval]);
  const shadow = definition.shadow;
  if (shadow?.authorize !== undefined) rules.push(["/shadow/authorize", shadow.authorize]);
  const shadowApproval = definition.risk === "write" ? shadow?.approval : undefined;
  if (shadowApproval !== undefined && shadowApproval !== "always" && shadowApproval !== "never")
    rules.push(["/shadow/approval", shadowApproval]);
  for (const [pointer, source] of rules) {
    const refused = policyLanguage().checkPolicyTypes(source, input);
    if (refused !== null) {
      const at = refused.position === null ? "" : ` at ${refused.position}`;
      return { pointer, message: `CEL${at}: ${refused.message}` };
    }
  }
  return null;
}

/** Compiles a definition (already checked by its zod contract) into a tool for the registry. */
export function buildTool(
  name: string,
  definition: ToolDefinition,
  targets: TargetPolicy,
): Result<BuiltTool, DefinitionRefusal> {
  const input = compileSchema(definition.input as Json);
  if (!input.ok) return err({ pointer: `/input${input.error.pointer}`, message: input.error.message });
  if (input.value.document["type"] !== "object")
    return err({ pointer: "/input/type", message: "a tool's input is an object schema" });
  const output = compileSchema(definition.output.schema as Json);
  if (!output.ok) return err({ pointer: `/output/schema${output.error.pointer}`, message: output.error.message });
  if (output.value.document["type"] !== "object")
    return err({ pointer: "/output/schema/type", message: "a tool's output is an object schema" });
  const bound = boundRules(definition);
  if (!bound.ok) return bound;
  const approvalSource = definition.risk === "write" ? (definition.approval ?? "always") : "never";
  const rules = compileRules(name, definition.risk, {
    authorize: definition.authorize,
    approval: approvalSource,
    at: { authorize: "/authorize", approval: "/approval" },
  });
  if (!rules.ok) return rules;
  const shadow = shadowOf(name, definition, approvalSource);
  if (!shadow.ok) return shadow;
  const target = definition.target;
  const headersRefused = target.kind === "http" ? checkHeaders(target) : null;
  if (headersRefused !== null) return err(headersRefused);
  const urls =
    target.kind === "http"
      ? ([
          ["/target/url", target.url],
          ["/target/status_url", target.status_url],
          ["/target/fence_url", target.fence_url],
        ] as const)
      : ([["/target/url", target.url]] as const);
  for (const [pointer, url] of urls) {
    const refused = url === undefined ? null : checkUrl(url, pointer, targets);
    if (refused !== null) return err(refused);
  }
  if (definition.risk === "read" && definition.confirmed_by !== undefined)
    return err({ pointer: "/confirmed_by", message: "only a write has an approval to confirm" });
  const endUser = definition.confirmed_by === "end_user";
  const revisions = {
    input: revision("input", definition.input),
    output: revision("output", definition.output),
    // The approval window joins the policy revision only when set: definitions without it keep their revisions.
    policy: revision("policy", {
      risk: definition.risk,
      authorize: definition.authorize,
      approval: approvalSource,
      ...(definition.approval_valid_seconds === undefined
        ? {}
        : { approval_valid_seconds: definition.approval_valid_seconds }),
      // Who confirms joins it only when it is the end user: definitions without it keep their revisions.
      ...(endUser ? { confirmed_by: "end_user" } : {}),
    }),
    // What the effect is: an HTTP request's URL and method, or an MCP server's tool.
    effect: revision(
      "effect",
      target.kind === "http"
        ? { risk: definition.risk, url: target.url, method: target.method }
        : { risk: definition.risk, url: target.url, tool: target.tool },
    ),
    // The secret headers (or MCP auth) by the secret they name and their prefix (never a value).
    handler: revision("handler", { target, timeout_ms: definition.timeout_ms }),
  };
  const enforced = rules.value;
  const ruleInput = (principal: Principal, args: JsonObject, ctx: ToolContext): RuleInput => ({
    principal,
    args,
    now: ctx.now ?? 0,
    claims: ctx.claims ?? {},
  });
  const spec = defineTool({
    name,
    description: definition.description,
    inputSchemaRevision: revisions.input,
    policyRevision: revisions.policy,
    risk: definition.risk,
    arguments: {},
    inputSchema: input.value,
    outputSchemaRevision: revisions.output,
    output: bound.value,
    outputSchema: output.value,
    maxOutputBytes: definition.output.max_bytes,
    maxOutputDepth: definition.output.max_depth,
    effectRevision: revisions.effect,
    handlerRevision: revisions.handler,
    producerLabel: name,
    producerRevision: revisions.handler,
    timeoutMs: definition.timeout_ms,
    authorize: (principal, args, ctx) => admits(enforced, ruleInput(principal, args, ctx)),
    // `always` leaves needsApproval out: the engine then asks a human for every write.
    ...(enforced.approval === "always"
      ? {}
      : {
          needsApproval: (principal: Principal, args: JsonObject, ctx: ToolContext) =>
            asksHuman(enforced, ruleInput(principal, args, ctx)),
        }),
    ...(definition.approval_valid_seconds === undefined
      ? {}
      : { approvalValidSeconds: definition.approval_valid_seconds }),
    execution: { kind: "external" },
    explainsArguments: true,
    ...(definition.risk === "write" && definition.approval !== undefined ? { approvalRule: definition.approval } : {}),
    ...(endUser ? { confirmedBy: "end_user" as const } : {}),
  });
  return ok({ spec, target, revisions, rules: enforced, shadow: shadow.value });
}

/**
 * The shadow rules of a definition (a rule left out is the enforced one), or null when it
 * publishes none. Their revision covers the rules in effect, so a changed enforced rule that the
 * shadow falls back to starts a new count too; the tool's own revisions never include it.
 */
function shadowOf(
  name: string,
  definition: ToolDefinition,
  approvalSource: string,
): Result<ShadowPolicy | null, DefinitionRefusal> {
  const shadow = definition.shadow;
  if (shadow === undefined) return ok(null);
  const sources = {
    authorize: shadow.authorize ?? definition.authorize,
    approval: definition.risk === "write" ? (shadow.approval ?? approvalSource) : "never",
  };
  const rules = compileRules(name, definition.risk, {
    ...sources,
    at: { authorize: "/shadow/authorize", approval: "/shadow/approval" },
  });
  return rules.ok ? ok({ rules: rules.value, revision: revision("shadow", sources) }) : rules;
}
