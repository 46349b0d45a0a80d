/**
 * Capabilities as tools (docs/capability-http.md, "Capabilities as tools"): the capabilities a
 * provider offers now and the actor's grants allow, listed by MCP `tools/list` and called by
 * `tools/call` and `POST …/tool-calls` like any tool. A call is one capability request of the
 * engine, under the same grants, approvals, deadline and audit as `POST …/capability/requests`;
 * the call waits (bounded) for the request's end and answers it as a Tool Result v2 package.
 * @module
 */
import type { CallEcho } from "../../../core/adapters/native-calls";
import { adapterFor } from "../../../core/adapters/provider-results";
import {
  type CapabilityCompletionEnvelope,
  type CapabilityEngineState,
  type CapabilityError,
  type PolicyDecision,
} from "../../../core/capability";
import { canonicalJson, sha256Hex, type JsonObject } from "../../../core/json";
import type { ErrorCode } from "../../../core/tool-result/error-catalog";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Principal, ResultPackage, ToolCall } from "../../../core/tool-result/types";
import type { ObjectKernel } from "../../kernel/kernel";
import type { AuditRef } from "../audit/service";
import { admitsCapability, type Scope } from "../identity/scope";
import { claimKey, type CapabilityService } from "./service";
import { capabilityToolNames } from "./tool-names";
import { capabilityArguments, capabilityToolSpec, failurePackage, resultPackage } from "./tool-result";

/** How long a capability tool call waits for its request's end: the request's deadline. */
export const CAPABILITY_TOOL_WAIT_MS = 30_000;

/**
 * The gate numbers its tool calls' requests from 2^52 up, below 2^53 (a provider reading JSON
 * numbers as doubles echoes them exactly); an agent's own local ids stay below 2^52.
 */
export const TOOL_LOCAL_ID_BASE = 1n << 52n;

/** A grant the actor holds for a capability, on an active instance's current generation of a provider offering it. */
export interface CapabilityTarget {
  readonly instance_id: bigint;
  readonly generation: bigint;
  readonly provider_id: string;
  readonly resource_scope_id: string;
  /** The provider is attached now (a socket or a long-poll lease). */
  readonly attached: boolean;
}

/** One capability tool a caller may see: its name, capability, description and the choices its grants give. */
export interface CapabilityToolEntry {
  readonly name: string;
  readonly capabilityId: string;
  readonly description: string;
  readonly scopes: readonly string[];
  readonly providers: readonly string[];
}

/** One capability tool call's answer (the tool-call answer's shape) and what its trace records. */
export interface CapabilityToolAnswer {
  readonly answer: JsonObject;
  readonly package: ResultPackage;
  readonly audit: AuditRef;
}

/** The actor's targets of a capability (`attached` or not), in grant order. */
export function targetsOf(
  state: CapabilityEngineState,
  consumer: string,
  actor: string,
  capabilityId: string,
): CapabilityTarget[] {
  const targets: CapabilityTarget[] = [];
  for (const { key } of state.grants) {
    if (key.consumer_id !== consumer || key.actor_id !== actor || key.capability_id !== capabilityId) continue;
    const active = state.instance_states.some(([id, s]) => id === key.instance_id && s === "active");
    const current = state.generations.some(([id, g]) => id === key.instance_id && g === key.generation);
    const provider = state.providers.find((p) => p.id === key.provider_id);
    if (!active || !current || !provider?.capabilities.some((c) => c.id === capabilityId)) continue;
    const attached = state.provider_runtime.bindings.some((b) => b.provider_id === key.provider_id);
    targets.push({ ...key, attached });
  }
  return targets;
}

function descriptionOf(state: CapabilityEngineState, providerId: string, capabilityId: string): string {
  const provider = state.providers.find((p) => p.id === providerId);
  return provider?.capabilities.find((c) => c.id === capabilityId)?.description ?? capabilityId;
}

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** What the gate tells the model beside a failure's fixed catalog entry. */
interface Ending {
  readonly code: ErrorCode;
  readonly guidance: string;
}

/** The ending of a request that did not succeed (`succeeded` included only for the type: it is answered before), in words (no provider message, id or reference). */
function endingOf(completion: CapabilityCompletionEnvelope, decision: PolicyDecision, capabilityId: string): Ending {
  const outcome = completion.outcome;
  const seconds = String(CAPABILITY_TOOL_WAIT_MS / 1000);
  if (outcome === "approval-denied")
    return { code: "TOOL_ERROR", guidance: `An approver denied this use of ${capabilityId}.` };
  if ("failed" in outcome)
    return {
      code: "TOOL_ERROR",
      guidance: `The provider could not do ${capabilityId} (${outcome.failed.failure.kind}).`,
    };
  if ("policy-denied" in outcome) {
    const reason = outcome["policy-denied"].reason;
    const tag = typeof reason === "string" ? reason : "stale-generation";
    return { code: "NOT_FOUND", guidance: `The grants do not allow ${capabilityId} now (${tag}).` };
  }
  if ("timed-out" in outcome && decision === "require-approval" && completion.operation_id === null)
    return {
      code: "APPROVAL_REQUIRED",
      guidance: `Each use of ${capabilityId} needs a person's approval, and no approver decided within ${seconds} s. Ask for it, then call again.`,
    };
  if ("timed-out" in outcome)
    return { code: "TOOL_ERROR", guidance: `The provider did not answer ${capabilityId} within ${seconds} s.` };
  if ("provider-detached" in outcome)
    return { code: "TOOL_ERROR", guidance: `The provider went away before answering ${capabilityId}.` };
  const tag = Object.keys(outcome)[0] ?? "ended";
  return { code: "TOOL_ERROR", guidance: `The request for ${capabilityId} ended: ${tag}.` };
}

/** An engine refusal of the request, in words. */
function refusalOf(error: CapabilityError, capabilityId: string): Ending {
  const tag = typeof error === "string" ? error : (Object.keys(error)[0] ?? "refused");
  if (tag === "provider-unavailable" || tag === "provider-binding-mismatch") return notAttached(capabilityId);
  // The request the gate built is valid but for what the arguments gave it: an input too large.
  if (tag === "validation")
    return { code: "INVALID_ARGUMENTS", guidance: `The input of ${capabilityId} is refused (at most 64 KiB of JSON).` };
  if (tag.endsWith("capacity-exceeded"))
    return {
      code: "RATE_LIMIT",
      guidance: `Too many requests for capabilities are open; try ${capabilityId} again shortly.`,
    };
  return { code: "TOOL_ERROR", guidance: `The gate refused the request for ${capabilityId} (${tag}).` };
}

function notAttached(capabilityId: string): Ending {
  return {
    code: "TOOL_ERROR",
    guidance: `No provider offering ${capabilityId} is attached now (for a browser: it is closed or its toolgate extension is not connected). Call again once it is.`,
  };
}

/** The capability tools of one consumer object: the list a caller may see, and one call. */
export class CapabilityTools {
  #sequence = 0;

  constructor(
    private readonly kernel: Pick<ObjectKernel, "now" | "transaction" | "audit">,
    private readonly host: CapabilityService,
  ) {}

  /** The capability a tool name stands for (`null`: none, or a defined tool has the name). */
  capabilityOf(name: string, registry: ToolRegistry): string | null {
    if (registry.has(name)) return null;
    const state = this.host.peek();
    return capabilityToolNames(state.providers, (n) => registry.has(n)).get(name) ?? null;
  }

  /** The tools a caller may see: capabilities its scope admits, its actor's grants allow and an attached provider offers. */
  list(consumer: string, actor: string, scope: Scope, registry: ToolRegistry): CapabilityToolEntry[] {
    const state = this.host.peek();
    const entries: CapabilityToolEntry[] = [];
    for (const [name, capabilityId] of capabilityToolNames(state.providers, (n) => registry.has(n))) {
      if (!admitsCapability(scope, capabilityId)) continue;
      const targets = targetsOf(state, consumer, actor, capabilityId).filter((t) => t.attached);
      const first = targets[0];
      if (first === undefined) continue;
      entries.push({
        name,
        capabilityId,
        description: descriptionOf(state, first.provider_id, capabilityId),
        scopes: unique(targets.map((t) => t.resource_scope_id)),
        providers: unique(targets.map((t) => t.provider_id)),
      });
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * One call of a capability tool (the caller's scope already admitted it), for `principal`'s
   * subject as the actor; `null` when the actor holds no grant for it (the caller then answers
   * it as an unknown tool, as the list never showed it).
   */
  async call(
    consumer: string,
    principal: Principal,
    call: ToolCall,
    capabilityId: string,
    echo?: CallEcho,
  ): Promise<CapabilityToolAnswer | null> {
    const actor = principal.subject_id;
    const state = this.host.peek();
    const targets = targetsOf(state, consumer, actor, capabilityId);
    const first = targets[0];
    if (first === undefined) return null;
    const spec = capabilityToolSpec(call.name, capabilityId, descriptionOf(state, first.provider_id, capabilityId));
    const end = (pkg: ResultPackage, guidance: string | null, record: JsonObject): CapabilityToolAnswer => {
      const audit = this.#audit({ tool: call.name, capability_id: capabilityId, actor_id: actor, ...record }, pkg);
      const adapter = adapterFor(call.provider, call.api_family, call.adapter_revision);
      if (adapter === undefined) throw new Error("validated host context names an unregistered provider profile");
      const projected = adapter.adapter(principal, call, spec, pkg, sha256Hex, echo);
      if (!projected.ok) throw new Error(`a capability package its adapter refuses: ${projected.error.message}`);
      const answer: JsonObject = {
        model_result: pkg.model_result,
        provider_output: projected.value,
        audit: { seq: audit.seq, leaf_hash: audit.leaf_hash },
      };
      if (guidance !== null) answer["guidance"] = guidance;
      return { answer, package: pkg, audit };
    };
    const failed = (ending: Ending, record: JsonObject = {}) =>
      end(failurePackage(principal, call, spec, ending.code, this.kernel.now()), ending.guidance, {
        ...record,
        code: ending.code,
      });
    const args = capabilityArguments(call.arguments);
    const scopes = unique(targets.map((t) => t.resource_scope_id));
    const providers = unique(targets.map((t) => t.provider_id));
    const choices = `resource_scope_id one of ${JSON.stringify(scopes)}, provider_id one of ${JSON.stringify(providers)}`;
    if (args === null)
      return failed({
        code: "INVALID_ARGUMENTS",
        guidance: `Arguments of ${call.name}: resource_scope_id and provider_id (strings, optional) and input (an object, optional).`,
      });
    const chosen = targets.filter(
      (t) =>
        (args.resource_scope_id === undefined || t.resource_scope_id === args.resource_scope_id) &&
        (args.provider_id === undefined || t.provider_id === args.provider_id),
    );
    if (chosen.length === 0) return failed({ code: "INVALID_ARGUMENTS", guidance: `Choose ${choices}.` });
    const attached = chosen.filter((t) => t.attached);
    const target = attached[0];
    if (target === undefined) return failed(notAttached(capabilityId));
    if (attached.length > 1)
      return failed({ code: "INVALID_ARGUMENTS", guidance: `More than one choice is granted: name ${choices}.` });
    return this.#request(consumer, actor, call.name, capabilityId, target, args.input, failed, (result, record) => {
      const pkg = resultPackage(principal, call, spec, result, capabilityId, this.kernel.now());
      return pkg === null
        ? failed({ code: "TOOL_ERROR", guidance: `The result of ${capabilityId} cannot be passed on.` }, record)
        : end(pkg, null, { ...record, code: null });
    });
  }

  /** The request of one call, its wait and its end (`failed` and `succeeded` build the answer). */
  async #request(
    consumer: string,
    actor: string,
    tool: string,
    capabilityId: string,
    target: CapabilityTarget,
    input: JsonObject,
    failed: (ending: Ending, record?: JsonObject) => CapabilityToolAnswer,
    succeeded: (
      result: Extract<CapabilityCompletionEnvelope["outcome"], { succeeded: unknown }>["succeeded"]["result"],
      record: JsonObject,
    ) => CapabilityToolAnswer,
  ): Promise<CapabilityToolAnswer> {
    const host = this.host;
    // The millisecond (mod 2^41, about 70 years) and a counter: distinct for 1,024 calls a millisecond.
    const ms = BigInt(host.nowMs()) % (1n << 41n);
    const localId = TOOL_LOCAL_ID_BASE + ms * 1024n + BigInt(this.#sequence++ % 1024);
    const record: JsonObject = {
      local_id: localId.toString(),
      provider_id: target.provider_id,
      resource_scope_id: target.resource_scope_id,
    };
    let take: (completion: CapabilityCompletionEnvelope) => void = () => undefined;
    const ended = new Promise<CapabilityCompletionEnvelope>((resolve) => (take = resolve));
    const release = host.claim(claimKey(actor, localId), take);
    const request = {
      consumer_id: consumer,
      actor_id: actor,
      request: {
        local_id: localId,
        instance_id: target.instance_id,
        generation: target.generation,
        provider_id: target.provider_id,
        capability_id: capabilityId,
        resource_scope_id: target.resource_scope_id,
        approval_summary: `Tool call ${tool} on ${target.resource_scope_id}`,
        deadline_tick: BigInt(host.nowMs() + CAPABILITY_TOOL_WAIT_MS),
        payload: [...new TextEncoder().encode(canonicalJson(input))],
      },
    };
    const decided = host.timed((state) =>
      host.apply(state, {
        "bound-request": { provider_binding_id: host.bindingOf(state, target.provider_id), request },
      }),
    );
    if (!decided.ok) {
      release();
      return failed(refusalOf(decided.error, capabilityId), record);
    }
    const decision = decided.value as PolicyDecision;
    const completion = await this.#wait(ended);
    release();
    if (completion === null)
      return failed({ code: "TOOL_ERROR", guidance: `No answer for ${capabilityId} within the wait.` }, record);
    const outcome = completion.outcome;
    const done = {
      ...record,
      decision: typeof decision === "string" ? decision : "deny",
      outcome: typeof outcome === "string" ? outcome : (Object.keys(outcome)[0] ?? "ended"),
    };
    if (typeof outcome !== "string" && "succeeded" in outcome) return succeeded(outcome.succeeded.result, done);
    return failed(endingOf(completion, decision, capabilityId), done);
  }

  /** The completion, or `null` when none came by the deadline (the step at the deadline expires the request first). */
  async #wait(ended: Promise<CapabilityCompletionEnvelope>): Promise<CapabilityCompletionEnvelope | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CAPABILITY_TOOL_WAIT_MS)));
    const first = await Promise.race([ended, late]);
    clearTimeout(timer);
    if (first !== null) return first;
    // The deadline passed: a step expires the request, and its completion is handed over as it commits.
    this.host.timed(() => null);
    return Promise.race([ended, Promise.resolve(null)]);
  }

  /** The audit entry of one call (`capability.tool-call`), the answer's receipt. */
  #audit(record: JsonObject, pkg: ResultPackage): AuditRef {
    const status = pkg.model_result.status;
    const now = this.kernel.now();
    return this.kernel.transaction(() => this.kernel.audit.append("capability.tool-call", now, { ...record, status }));
  }
}
