/**
 * Standing approvals (docs/approvals.md, "Standing approvals"): an approver grants, lists and
 * revokes them; the tool-call service asks {@link StandingService.cover} whether one covers a
 * write that needs a human, inside that call's transaction, where the use is counted.
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import type { CompiledPolicy } from "../../../core/policy";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import {
  MAX_ACTIVE_STANDING,
  type StandingApprovalGrant,
  type StandingApprovalView,
} from "../../../contracts/standing-approval";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { LruMap } from "../../lru";
import type { ObjectKernel } from "../../kernel/kernel";
import { policyLanguage } from "../../kernel/policy-language";
import { randomHex } from "../../kernel/random-id";
import type { ConsumerRecord } from "../consumers/service";
import { inputSchemaOf } from "../tools/declare";
import { StandingStore, viewOf } from "./store";

/** Compiled constraints kept between calls (by source text). */
export const COMPILED_CONSTRAINTS = 64;
/** The list's length: the newest grants. */
export const STANDING_LIST_ITEMS = 100;

/** The standing approval that covers one call: its id and the approver who granted it. */
export interface StandingCover {
  readonly id: string;
  readonly approverId: string;
}

/** What the service uses of the kernel. */
type StandingKernel = Pick<ObjectKernel, "sql" | "audit" | "transaction" | "now">;

/** A constraint refused where it was granted, as an `INVALID_REQUEST` naming `/constraint`. */
function constraintRefusal(message: string, position: number | null): Outcome<never> {
  const at = position === null ? "" : ` at ${position}`;
  return fail({ ...problem("INVALID_REQUEST", `The constraint (CEL${at}): ${message}`), path: "/constraint" });
}

/** The consumer's standing approvals. */
export class StandingService {
  readonly store: StandingStore;
  readonly #kernel: StandingKernel;
  readonly #compiled = new LruMap<string, CompiledPolicy>(COMPILED_CONSTRAINTS);

  constructor(kernel: StandingKernel) {
    this.#kernel = kernel;
    this.store = new StandingStore(kernel.sql);
  }

  /** How many compiled constraints are held (the memory report). */
  get compiledConstraints(): number {
    return this.#compiled.size;
  }

  /**
   * An approver's grant, within the consumer's setting: a tool it lists, a window and a count no
   * larger than it allows, never for the approver's own subject, the constraint type-checked
   * against the tool's input schema. Stored and audited in one transaction.
   */
  grant(
    config: ConsumerRecord,
    registry: ToolRegistry,
    approverId: string,
    body: StandingApprovalGrant,
  ): Outcome<StandingApprovalView> {
    const setting = config.standingApprovals;
    if (setting === null || !setting.tools.includes(body.tool))
      return fail(problem("STANDING_APPROVAL_NOT_ALLOWED", "The consumer allows no standing approval of this tool."));
    if (body.seconds > setting.max_seconds)
      return fail(
        problem(
          "STANDING_APPROVAL_NOT_ALLOWED",
          `The consumer allows a standing approval of at most ${setting.max_seconds} seconds.`,
        ),
      );
    if (body.max_calls > setting.max_calls)
      return fail(
        problem(
          "STANDING_APPROVAL_NOT_ALLOWED",
          `The consumer allows a standing approval of at most ${setting.max_calls} calls.`,
        ),
      );
    if (body.subject_id === approverId)
      return fail(problem("SELF_APPROVAL_FORBIDDEN", "An approver may not grant a standing approval to itself."));
    const spec = registry.get(body.tool);
    if (spec === undefined || spec.risk !== "write")
      return fail({
        ...problem("INVALID_REQUEST", "The consumer enables no write tool of this name."),
        path: "/tool",
      });
    const constraint = body.constraint ?? null;
    if (constraint !== null) {
      const compiled = policyLanguage().compilePolicy(constraint, "approval");
      if (!compiled.ok) return constraintRefusal(compiled.error.message, compiled.error.position);
      const typed = policyLanguage().checkPolicyTypes(constraint, inputSchemaOf(spec));
      if (typed !== null) return constraintRefusal(typed.message, typed.position);
    }
    return this.#kernel.transaction(() => {
      const now = this.#kernel.now();
      if (this.store.activeCount(now) >= MAX_ACTIVE_STANDING)
        return fail(
          problem(
            "QUOTA_EXCEEDED",
            `The consumer holds ${MAX_ACTIVE_STANDING} active standing approvals; revoke one first.`,
            60,
          ),
        );
      const row = {
        id: `sta_${randomHex(16)}`,
        tool: body.tool,
        subjectId: body.subject_id,
        approverId,
        constraint,
        grantedAt: now,
        expiresAt: now + body.seconds,
        maxCalls: body.max_calls,
        usedCalls: 0,
        revokedAt: null,
        revokedBy: null,
      };
      this.store.insert(row);
      const view = viewOf(row, now);
      this.#kernel.audit.append("standing_approval.granted", now, view);
      return ok(view);
    });
  }

  /** The newest grants, each with where it stands now. */
  list(): Outcome<string> {
    const now = this.#kernel.now();
    const rows = this.store.newest(STANDING_LIST_ITEMS);
    return ok(canonicalJson({ standing_approvals: rows.map((row) => viewOf(row, now)) }));
  }

  /** Revokes a grant (any approver of the consumer may): the next call it would have covered asks a human again. */
  revoke(id: string, approverId: string): Outcome<string> {
    return this.#kernel.transaction(() => {
      const now = this.#kernel.now();
      if (this.store.get(id) === undefined) return fail(problem("NOT_FOUND", "No such standing approval."));
      if (this.store.revoke(id, approverId, now))
        this.#kernel.audit.append("standing_approval.revoked", now, {
          standing_approval_id: id,
          revoked_by: approverId,
        });
      const row = this.store.get(id);
      if (row === undefined) throw new Error("a standing approval vanished in its own transaction");
      return ok(canonicalJson(viewOf(row, now)));
    });
  }

  /**
   * The active grant that covers this call, its use counted; `null` when none does. Inside the
   * call's transaction: the count and the call's own records commit or roll back together. A
   * grant covers only while the consumer still allows the tool and its approver is still one.
   */
  cover(
    config: ConsumerRecord,
    principal: Principal,
    call: ToolCall,
    claims: JsonObject,
    now: number,
  ): StandingCover | null {
    const setting = config.standingApprovals;
    if (setting === null || !setting.tools.includes(call.name)) return null;
    for (const row of this.store.live(principal.subject_id, call.name, now)) {
      if (!config.approverSubjects.includes(row.approverId) || row.approverId === principal.subject_id) continue;
      if (row.constraint !== null && !this.#admits(row.constraint, principal, call, claims, now)) continue;
      if (this.store.consume(row.id, now)) return { id: row.id, approverId: row.approverId };
    }
    return null;
  }

  /** Whether a constraint answers true for the call's exact arguments (an error or a non-boolean: not covered). */
  #admits(source: string, principal: Principal, call: ToolCall, claims: JsonObject, now: number): boolean {
    let policy = this.#compiled.get(source);
    if (policy === undefined) {
      const compiled = policyLanguage().compilePolicy(source, "approval");
      if (!compiled.ok) return false;
      policy = compiled.value;
      this.#compiled.set(source, policy);
    }
    const verdict = policy.evaluate({
      principal: { subject_id: principal.subject_id, roles: [...principal.roles], claims },
      args: call.arguments,
      tool: call.name,
      consumer: principal.tenant_id,
      now,
    });
    return verdict.ok && verdict.value;
  }
}
