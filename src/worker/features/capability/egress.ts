import { writeWireJson, type CapabilityEngineState } from "../../../core/capability";
import { attachmentOf } from "./attachment";
import type { CapabilityService } from "./service";
import { auditRecord, effectMessage } from "./schedule";

/**
 * The kernel's egress, run inside a host step: every effect the engine queued is drained and
 * bound to its provider's current binding in the outbox (an effect whose provider has no
 * binding is recorded as `capability.effect-unbound`); stale bindings' rows are dropped.
 */
export function drainEffects(host: CapabilityService, state: CapabilityEngineState): void {
  if (state.effects.length === 0) return;
  const at = host.deps.nowSeconds();
  const effects = state.effects;
  host.apply(state, "drain-effects");
  for (const effect of effects) {
    const binding = host.bindingOf(state, effect.provider_id);
    if (binding === null) {
      host.deps.audit.append(
        "capability.effect-unbound",
        at,
        auditRecord({ operation_id: effect.operation_id, provider_id: effect.provider_id, sequence: effect.sequence }),
      );
      continue;
    }
    host.store.enqueue(effect.provider_id, binding, effect.sequence, writeWireJson({ binding_id: binding, effect }));
  }
  for (const provider of host.store.providersWithPending())
    host.store.dropStale(provider, host.bindingOf(state, provider));
}

/** Sends a provider's queued effects to its socket, if one holds the binding; sent rows leave the outbox. */
export function pushEffects(host: CapabilityService, providerId: string, binding: bigint): void {
  const id = binding.toString();
  const socket = host.deps.sockets(providerId).find((ws) => attachmentOf(ws)?.bindingId === id);
  if (socket === undefined) return;
  const rows = host.store.pending(providerId, binding);
  const sent: number[] = [];
  for (const row of rows) {
    try {
      socket.send(effectMessage(row));
      sent.push(row.rowId);
    } catch {
      break; // closing socket: webSocketClose detaches it
    }
  }
  host.deps.transaction(() => host.store.remove(sent));
}
