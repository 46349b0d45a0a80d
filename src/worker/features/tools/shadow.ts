/**
 * Policies in shadow (docs/approvals.md): a data tool's shadow rules are evaluated on every call
 * beside its enforced rules, inside the call's first transaction, and never decide. Each call is
 * counted per tool and shadow revision; each disagreement (allow vs refuse, a human vs none) is
 * kept by digest, subject and call id, with the arguments only when the consumer keeps them in
 * its audit records.
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import { requestDigest } from "../../../core/tool-result/digests";
import type { BeginDispatchResult } from "../../../core/tool-result/dispatcher";
import type { HashFn, Principal, ToolCall } from "../../../core/tool-result/types";
import type { AuditArguments } from "../../../contracts/consumer";
import type { ToolDefinition } from "../../../contracts/tool-definition";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Span } from "../../trace/span";
import type { BuiltTool } from "./build";
import { decide, type PolicyDecision, type RuleInput } from "./rules";
import { SHADOW_KEPT, ShadowStore, type Disagreement, type DisagreementKind } from "./shadow-store";

/** The trace attribute saying whether a call's shadow rules agreed with the enforced ones. */
export const SHADOW_AGREES_ATTRIBUTE = "toolgate.policy.shadow_agrees";

/** Answers the rules never reached (the tool unknown, the arguments invalid, the call id reused): not evaluated. */
export const BEFORE_POLICY: ReadonlySet<string> = new Set(["UNKNOWN_TOOL", "INVALID_ARGUMENTS", "CALL_ID_CONFLICT"]);

/** One call's first step, as the shadow observes it (in the step's transaction). */
export interface ShadowSeen {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly now: number;
  readonly claims: JsonObject | undefined;
  readonly result: BeginDispatchResult;
  readonly hash: HashFn;
  readonly span: Span | undefined;
}

/** What a disagreement between two decisions is about, or null when they agree. */
export function disagreement(enforced: PolicyDecision, shadow: PolicyDecision): DisagreementKind | null {
  if (enforced === shadow) return null;
  return enforced === "refused" || shadow === "refused" ? "authorize" : "approval";
}

/** The shadow rules of the consumer's data tools: evaluated, counted, kept; read by the admin. */
export class ShadowPolicies {
  readonly #store: ShadowStore;

  constructor(
    sql: SqlStorage,
    /** The enabled data tools, compiled. */
    private readonly built: () => readonly BuiltTool[],
  ) {
    this.#store = new ShadowStore(sql);
  }

  /**
   * Evaluates a call's shadow rules beside its enforced ones and records the outcome; answers
   * whether they agreed (null: the tool has no shadow, or the rules were never reached). The
   * enforced decision is re-evaluated on the same input, so it is the one the engine took.
   */
  observe(seen: ShadowSeen, keep: AuditArguments): boolean | null {
    const { result, call, principal } = seen;
    const tool = this.built().find((b) => b.spec.name === call.name);
    if (tool?.shadow === undefined || tool.shadow === null) return null;
    if (result.kind === "final" && BEFORE_POLICY.has(result.package.model_result.error?.code ?? "")) return null;
    const input: RuleInput = { principal, args: call.arguments, now: seen.now, claims: seen.claims ?? {} };
    const enforced = decide(tool.rules, input);
    const shadow = decide(tool.shadow.rules, input);
    const kind = disagreement(enforced, shadow);
    this.#store.count(call.name, tool.shadow.revision, kind, seen.now);
    if (kind !== null)
      this.#store.keep({
        tool: call.name,
        revision: tool.shadow.revision,
        at: seen.now,
        kind,
        enforced,
        shadow,
        subject_id: principal.subject_id,
        call_id: call.call_id,
        request_sha256: requestDigest(principal, call, tool.spec, seen.hash),
        ...(keep === "full" ? { arguments: call.arguments } : {}),
      });
    seen.span?.set(SHADOW_AGREES_ATTRIBUTE, kind === null);
    return kind === null;
  }

  /** Every data tool with shadow rules, by name, each with at most `kept` disagreements (no arguments): the console's list. */
  summaries(kept: number): ShadowSummary[] {
    return this.built().flatMap((tool) => {
      const shadow = tool.shadow;
      if (shadow === null) return [];
      const counts = this.#store.counts(tool.spec.name, shadow.revision);
      return [
        {
          name: tool.spec.name,
          revision: shadow.revision,
          evaluated: counts?.evaluated ?? 0,
          agreed: counts?.agreed ?? 0,
          disagreed: counts?.disagreed ?? { authorize: 0, approval: 0 },
          // The console shows no argument values, whatever the consumer keeps.
          disagreements: this.#store.disagreements(tool.spec.name, kept).map(({ arguments: _, ...rest }) => rest),
        },
      ];
    });
  }

  /**
   * `GET …/tools/{name}/shadow`: the current shadow's rules, revision and counts, and the tool's
   * kept disagreements (newest first). A tool without a shadow answers its kept list and null counts.
   */
  view(name: string, definition: ToolDefinition | undefined): Outcome<string> {
    if (definition === undefined) return fail(problem("NOT_FOUND", "No such tool."));
    const shadow = this.built().find((b) => b.spec.name === name)?.shadow ?? null;
    const counts = shadow === null ? undefined : this.#store.counts(name, shadow.revision);
    const empty = { evaluated: 0, agreed: 0, disagreed: { authorize: 0, approval: 0 } };
    const rules = definition.shadow;
    return ok(
      canonicalJson({
        name,
        shadow:
          rules === undefined
            ? null
            : {
                ...(rules.authorize === undefined ? {} : { authorize: rules.authorize }),
                ...(rules.approval === undefined ? {} : { approval: rules.approval }),
              },
        revision: shadow?.revision ?? null,
        counts: shadow === null ? null : { ...empty, ...(counts === undefined ? {} : countsJson(counts)) },
        disagreements: this.#store.disagreements(name, SHADOW_KEPT).map((d) => ({ ...d })),
      }),
    );
  }
}

/** One tool's shadow as the console lists it: the counts of its current revision and its newest disagreements. */
export interface ShadowSummary {
  readonly name: string;
  readonly revision: string;
  readonly evaluated: number;
  readonly agreed: number;
  readonly disagreed: { readonly authorize: number; readonly approval: number };
  readonly disagreements: readonly Disagreement[];
}

function countsJson(counts: NonNullable<ReturnType<ShadowStore["counts"]>>): JsonObject {
  return { evaluated: counts.evaluated, agreed: counts.agreed, disagreed: { ...counts.disagreed } };
}
