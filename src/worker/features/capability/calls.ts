import { writeWireJson, type CapabilityEngineState, type CapabilityError } from "../../../core/capability";
import type { Result } from "../../../core/result";
import type {
  CapabilityAuthorityRequest,
  CapabilityInstanceUpdate,
  CapabilityObservationPost,
  CapabilityProviderRegistration,
  CapabilityRequestBody,
} from "../../../contracts/capability";
import type { CredentialKind } from "../../../contracts/access";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import { admitsCapability, capabilitiesOf, type Scope } from "../identity/scope";
import type { Limits } from "../../kernel/limits";
import { approvalsCall, authorityCall } from "./authority";
import { drainMailbox } from "./completions";
import { engineProblem } from "./engine-problem";
import { LEASE_MS, type CapabilityService } from "./service";

export { engineProblem };

/** One capability-service call, as the Worker hands it to the consumer's object; `kind` is its operation in the access table. */
export type CapabilityCall =
  | { kind: "register-provider"; body: CapabilityProviderRegistration }
  | { kind: "set-instance"; instanceId: bigint; body: CapabilityInstanceUpdate }
  | { kind: "remove-instance"; instanceId: bigint }
  | { kind: "authority"; body: CapabilityAuthorityRequest }
  | { kind: "approvals"; cursor: string | null }
  | { kind: "request"; body: CapabilityRequestBody }
  | { kind: "request-status"; actorId: string; localId: bigint }
  | { kind: "drain-completions"; actorId: string | null }
  | { kind: "snapshot" }
  | { kind: "attach"; providerId: string }
  | { kind: "poll"; providerId: string; bindingId: bigint; after: bigint | null; waitMs: number }
  | { kind: "observe"; providerId: string; body: CapabilityObservationPost }
  | { kind: "detach"; providerId: string; bindingId: bigint };

/** The authenticated caller of a capability call; a credential's `scope` (identity/scope.ts) names the capabilities it may use. */
export type CapabilityCaller = { kind: "admin" } | { kind: CredentialKind; subjectId: string | null; scope: Scope };

function wireAnswer(outcome: Result<unknown, CapabilityError>, body: (value: unknown) => unknown): Outcome<string> {
  return outcome.ok ? ok(writeWireJson(body(outcome.value))) : fail(engineProblem(outcome.error));
}

function forbidden(detail: string): Outcome<string> {
  return fail(problem("FORBIDDEN", detail));
}

/**
 * The capability routes' calls, each caller checked first: the admin secret (`token` null,
 * checked by the Worker) or a consumer credential of a kind the access table allows.
 * Capability bodies carry no end-user token, so a token-verified credential has no verified
 * actor here and is refused.
 */
export class CapabilityCalls {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "limits">,
    private readonly gate: Gatekeeper,
    private readonly host: CapabilityService,
  ) {}

  /** One call (`limits`: the consumer's, read before its caller is checked). */
  async call(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    const { gate, host } = this;
    const limits = this.kernel.limits();
    if (token === null) {
      const config = gate.admin(consumer, call.kind);
      return config.ok
        ? capabilityCall(host, consumer, { kind: "admin" }, config.value.approverSubjects, call, limits)
        : config;
    }
    const auth = gate.authenticate(consumer, token, call.kind);
    if (!auth.ok) return auth;
    if (auth.value.caller.principal === "token")
      return fail(problem("PRINCIPAL_MISMATCH", "A token-verified credential acts on the tool-call plane only."));
    const caller: CapabilityCaller = {
      kind: auth.value.caller.kind,
      subjectId: auth.value.caller.subjectId,
      scope: auth.value.caller.tools,
    };
    return capabilityCall(host, consumer, caller, auth.value.config.approverSubjects, call, limits);
  }
}

/**
 * Runs one authenticated call against the consumer's engine. `consumer` is the engine's
 * consumer id (the toolgate consumer name); `approvers` the consumer's approver subjects;
 * `limits` the consumer's limits (the approvals page size).
 */
export async function capabilityCall(
  host: CapabilityService,
  consumer: string,
  caller: CapabilityCaller,
  approvers: readonly string[],
  call: CapabilityCall,
  limits: Pick<Limits, "page_items">,
): Promise<Outcome<string>> {
  const subject = caller.kind === "admin" ? null : caller.subjectId;
  const scope = caller.kind === "admin" ? null : caller.scope;
  switch (call.kind) {
    case "register-provider": {
      const descriptor = call.body.descriptor;
      return wireAnswer(host.operate({ "register-provider": { descriptor } }), () => ({ provider_id: descriptor.id }));
    }
    case "set-instance":
      return wireAnswer(
        host.timed((state) => {
          const set = host.apply(state, {
            "set-generation": { instance_id: call.instanceId, generation: call.body.generation },
          });
          if (!set.ok) return set;
          return host.apply(state, {
            "set-instance-state": {
              instance_id: call.instanceId,
              generation: call.body.generation,
              state: call.body.state,
            },
          });
        }),
        () => ({ instance_id: call.instanceId, generation: call.body.generation, state: call.body.state }),
      );
    case "remove-instance":
      return wireAnswer(host.operate({ "remove-instance": { instance_id: call.instanceId } }), (removed) => ({
        removed,
      }));
    case "authority":
      return authorityCall(host, caller, approvers, call.body);
    case "approvals":
      return approvalsCall(host, consumer, caller, approvers, call.cursor, limits);
    case "request": {
      if (subject !== null && subject !== call.body.actor_id)
        return forbidden("This agent credential acts only as its own subject.");
      // Before the engine sees it, like a tool outside the scope: the refusal is the same whether the capability exists or not.
      const capability = call.body.request.capability_id;
      if (!admitsCapability(scope, capability))
        return forbidden(`This credential may not request the capability ${JSON.stringify(capability)}.`);
      const request = { consumer_id: consumer, actor_id: call.body.actor_id, request: call.body.request };
      const key = { consumer_id: consumer, actor_id: call.body.actor_id, local_id: call.body.request.local_id };
      let accepted: bigint | null = null;
      let tick = 0n;
      const outcome = host.timed((state) => {
        const binding =
          call.body.provider_binding_id === undefined
            ? host.bindingOf(state, call.body.request.provider_id)
            : call.body.provider_binding_id;
        const result = host.apply(state, { "bound-request": { provider_binding_id: binding, request } });
        accepted = snapshotOf(state, key)?.accepted_sequence ?? null;
        tick = state.current_tick;
        return result;
      });
      return wireAnswer(outcome, (decision) => ({ request_key: key, accepted_sequence: accepted, decision, tick }));
    }
    case "request-status": {
      if (subject !== null && subject !== call.actorId)
        return forbidden("This agent credential acts only as its own subject.");
      const key = { consumer_id: consumer, actor_id: call.actorId, local_id: call.localId };
      const found = host.timed((state) => snapshotOf(state, key));
      // A request of a capability outside the scope reads as missing.
      if (found === null || !admitsCapability(scope, found.capability_id))
        return fail(problem("NOT_FOUND", "No such capability request."));
      return ok(writeWireJson({ request: found }));
    }
    case "drain-completions": {
      // A subject-bound agent drains its own actor's completions; a host agent names the actor.
      if (subject !== null && call.actorId !== null && call.actorId !== subject)
        return forbidden("This agent credential acts only as its own subject.");
      const actor = subject ?? call.actorId;
      if (actor === null)
        return fail(
          problem(
            "INVALID_REQUEST",
            "A host agent credential names the actor whose completions it drains: ?actor_id=…",
          ),
        );
      // A scoped credential drains only the completions of the capabilities its scope names.
      const capabilities = capabilitiesOf(scope);
      if (capabilities !== null && capabilities.length === 0)
        return forbidden("This credential's scope names no capability.");
      return ok(host.timed((state) => drainMailbox(host, state, actor, capabilities)));
    }
    case "snapshot":
      return ok(
        writeWireJson(
          host.timed((state) => {
            const snapshot = host.apply(state, "snapshot");
            const runtime = host.apply(state, "provider-runtime-snapshot");
            return {
              snapshot: snapshot.ok ? snapshot.value : null,
              provider_runtime: runtime.ok ? runtime.value : null,
            };
          }),
        ),
      );
    case "attach": {
      if (subject !== null && subject !== call.providerId)
        return forbidden("This provider credential attaches only its own provider.");
      let binding = 0n;
      const outcome = host.timed((state) => {
        const result = host.runtime(state, (sequence) => {
          binding = sequence;
          return { attach: { binding_id: sequence, provider_id: call.providerId } };
        });
        if (result.ok) host.store.setLease(call.providerId, binding, host.nowMs() + LEASE_MS);
        return result;
      });
      return wireAnswer(outcome, () => ({ provider_id: call.providerId, binding_id: binding, lease_ms: LEASE_MS }));
    }
    case "poll": {
      if (subject !== null && subject !== call.providerId)
        return forbidden("This provider credential attaches only its own provider.");
      const rows = await host.poll(call.providerId, call.bindingId, call.after, call.waitMs);
      if (rows === null) return fail(engineProblem({ "not-attached": { provider_id: call.providerId } }));
      return ok(`{"effects":[${rows.map((row) => row.envelope).join(",")}]}`);
    }
    case "observe": {
      if (subject !== null && subject !== call.providerId)
        return forbidden("This provider credential attaches only its own provider.");
      if (call.body.observation.provider_id !== call.providerId)
        return forbidden("The observation names another provider.");
      const outcome = host.timed((state) =>
        host.runtime(state, () => ({
          observe: { binding_id: call.body.binding_id, observation: call.body.observation },
        })),
      );
      return wireAnswer(outcome, (value) => ({ outcome: value }));
    }
    case "detach": {
      if (subject !== null && subject !== call.providerId)
        return forbidden("This provider credential attaches only its own provider.");
      const outcome = host.timed((state) => {
        const result = host.runtime(state, () => ({
          detach: { binding_id: call.bindingId, provider_id: call.providerId },
        }));
        if (result.ok) host.store.dropLease(call.providerId);
        return result;
      });
      return wireAnswer(outcome, (value) => ({ outcome: value }));
    }
  }
}

function snapshotOf(state: CapabilityEngineState, key: { consumer_id: string; actor_id: string; local_id: bigint }) {
  const record = state.requests.find(
    (r) =>
      r.snapshot.key.consumer_id === key.consumer_id &&
      r.snapshot.key.actor_id === key.actor_id &&
      r.snapshot.key.local_id === key.local_id,
  );
  return record === undefined ? null : record.snapshot;
}
