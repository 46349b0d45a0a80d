/**
 * A data-defined tool's two rules, `authorize` and `approval`, compiled once and evaluated as
 * one decision: the enforced rules through the engine's tool spec, the shadow rules and a replay's
 * candidate rules beside it (docs/approvals.md, "Policies in shadow"). One evaluation for all of
 * them, so a shadow or a replay reads the same verdict the engine would have.
 * @module
 */
import type { JsonObject } from "../../../core/json";
import type { CompiledPolicy } from "../../../core/policy";
import { err, ok, type Result } from "../../../core/result";
import type { Principal } from "../../../core/tool-result/types";
import { policyLanguage } from "../../kernel/policy-language";

/** Why a definition is refused: a message and the JSON pointer of the offending member. */
export interface DefinitionRefusal {
  readonly pointer: string;
  readonly message: string;
}

/** What a tool's rules decide for one call: refuse it (NOT_FOUND), send it to a human, or let it run. */
export type PolicyDecision = "refused" | "needs_approval" | "allowed";

/** Everything a rule reads of one call (claims: the end user's verified claims, or `{}`). */
export interface RuleInput {
  readonly principal: Principal;
  readonly args: JsonObject;
  readonly now: number;
  readonly claims: JsonObject;
}

/** A compiled rule's verdict: true, false, or null when it erred or ran out of budget. */
export type RuleVerdict = (input: RuleInput) => boolean | null;

/** A tool's two rules, compiled. */
export interface ToolRules {
  readonly risk: "read" | "write";
  readonly authorize: RuleVerdict;
  /** `always`/`never`, or a rule (a read's is `never`). */
  readonly approval: RuleVerdict | "always" | "never";
}

/** The sources the rules are compiled from, and where each sits in the definition (for refusals). */
export interface RuleSources {
  readonly authorize: string;
  readonly approval: string;
  readonly at: { readonly authorize: string; readonly approval: string };
}

function policyOf(
  source: string,
  use: "authorize" | "approval",
  pointer: string,
): Result<CompiledPolicy, DefinitionRefusal> {
  const compiled = policyLanguage().compilePolicy(source, use);
  if (compiled.ok) return compiled;
  const at = compiled.error.position === null ? "" : ` at ${compiled.error.position}`;
  return err({ pointer, message: `CEL${at}: ${compiled.error.message}` });
}

function verdictOf(tool: string, policy: CompiledPolicy): RuleVerdict {
  return ({ principal, args, now, claims }) => {
    const verdict = policy.evaluate({
      principal: { subject_id: principal.subject_id, roles: [...principal.roles], claims },
      args,
      tool,
      consumer: principal.tenant_id,
      now,
    });
    return verdict.ok ? verdict.value : null;
  };
}

/** Compiles a tool's rules (`approval`: `always`, `never` or CEL; a read's is `never`). */
export function compileRules(
  tool: string,
  risk: "read" | "write",
  sources: RuleSources,
): Result<ToolRules, DefinitionRefusal> {
  const authorize = policyOf(sources.authorize, "authorize", sources.at.authorize);
  if (!authorize.ok) return authorize;
  const source = risk === "write" ? sources.approval : "never";
  if (source === "always" || source === "never")
    return ok({ risk, authorize: verdictOf(tool, authorize.value), approval: source });
  const approval = policyOf(source, "approval", sources.at.approval);
  if (!approval.ok) return approval;
  return ok({ risk, authorize: verdictOf(tool, authorize.value), approval: verdictOf(tool, approval.value) });
}

/** Whether the rules admit the call: only a true verdict does (an error denies). */
export function admits(rules: ToolRules, input: RuleInput): boolean {
  return rules.authorize(input) === true;
}

/** Whether a write needs a human: unless its rule says false (an error asks a human); a read never does. */
export function asksHuman(rules: ToolRules, input: RuleInput): boolean {
  if (rules.risk === "read" || rules.approval === "never") return false;
  return rules.approval === "always" || rules.approval(input) !== false;
}

/** The rules' decision for one call, as the engine takes it: authorize first, then (a write) approval. */
export function decide(rules: ToolRules, input: RuleInput): PolicyDecision {
  if (!admits(rules, input)) return "refused";
  return asksHuman(rules, input) ? "needs_approval" : "allowed";
}
