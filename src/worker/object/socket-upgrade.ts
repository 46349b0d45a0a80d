import type { Operation } from "../../contracts/access";
import { problem, problemResponse } from "../problem";
import type { Outcome } from "../result";
import type { CapabilityHost } from "./capability/host";
import { connectProvider } from "./capability/socket";
import type { ConsumerRecord } from "./consumer/plane";
import type { Caller } from "./credentials/plane";
import type { RuntimeTransport } from "./runtime/plane";
import { acceptRuntimeSocket } from "./runtime/socket";
import { socketQuota, type SessionPolicy } from "./sessions";
import { SOCKET_CONSUMER_HEADER, SOCKET_PROVIDER_HEADER, SOCKET_ROUTE_HEADER, SOCKET_TOKEN_HEADER } from "./socket-route";

/** A credential the object has authenticated, and the consumer it belongs to. */
export interface Authenticated {
  caller: Caller;
  config: ConsumerRecord;
}

/** What a socket upgrade uses of its object. */
export interface SocketUpgradeDeps {
  readonly ctx: DurableObjectState;
  readonly capability: CapabilityHost;
  readonly policy: SessionPolicy;
  authenticate(consumer: string, token: string, operation: Operation): Outcome<Authenticated>;
  runtimeOf(config: ConsumerRecord): RuntimeTransport;
}

/**
 * A WebSocket upgrade forwarded by the Worker's routes (which matched the path and passed what
 * they matched in headers): the runtime socket or a provider's capability socket. The
 * credential is authenticated, a provider credential bound to a provider attaches only that
 * one, and the credential's socket quota is checked before the upgrade.
 */
export function upgradeSocket(request: Request, deps: SocketUpgradeDeps): Response {
  const route = request.headers.get(SOCKET_ROUTE_HEADER);
  const consumer = request.headers.get(SOCKET_CONSUMER_HEADER) ?? "";
  const token = request.headers.get(SOCKET_TOKEN_HEADER) ?? "";
  if (route !== "runtime" && route !== "capability") return problemResponse(problem("NOT_FOUND", "No such route."));
  const auth = deps.authenticate(consumer, token, route === "runtime" ? "runtimeConnect" : "connect");
  if (!auth.ok) return problemResponse(auth.error);
  const { caller, config } = auth.value;
  const providerId = request.headers.get(SOCKET_PROVIDER_HEADER) ?? "";
  if (route === "capability" && caller.subjectId !== null && caller.subjectId !== providerId) {
    return problemResponse(problem("FORBIDDEN", "This provider credential attaches only its own provider."));
  }
  const quota = socketQuota(deps.ctx, caller.credentialId, deps.policy.limits);
  if (!quota.ok) return problemResponse(quota.error);
  return route === "runtime"
    ? acceptRuntimeSocket(deps.ctx, deps.runtimeOf(config), caller.credentialId, deps.policy)
    : connectProvider(deps.ctx, deps.capability, request, providerId, caller.credentialId);
}
