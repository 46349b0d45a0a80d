import { problem, problemResponse } from "../../http/problem";
import type { CapabilityService } from "../capability/service";
import { connectProvider, isCapabilitySocket, onCapabilityClose, onCapabilityMessage } from "../capability/socket";
import type { ConsumerRecord } from "../consumers/service";
import type { Caller, CredentialService } from "../credentials/service";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import type { RuntimeTransport } from "../runtime/service";
import { acceptRuntimeSocket, isRuntimeSocket, onRuntimeClose, onRuntimeMessage } from "../runtime/socket";
import { admitMessage, sessionPolicy, socketQuota, type SessionPolicy } from "./sessions";
import {
  SOCKET_CONSUMER_HEADER,
  SOCKET_PROVIDER_HEADER,
  SOCKET_ROUTE_HEADER,
  SOCKET_TOKEN_HEADER,
} from "./socket-route";

/** A credential the object has authenticated, and the consumer it belongs to. */
export interface Authenticated {
  caller: Caller;
  config: ConsumerRecord;
}

/** The object's WebSockets (hibernatable): the runtime socket and providers' capability sockets. */
export class ObjectSockets {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "ctx" | "limits" | "rateMs" | "config">,
    private readonly gate: Gatekeeper,
    private readonly credentials: CredentialService,
    private readonly capability: CapabilityService,
    private readonly runtime: RuntimeTransport,
  ) {}

  /** The consumer's session rules now: its limits, and whether a credential still holds. */
  #policy(): SessionPolicy {
    return sessionPolicy(this.kernel.limits(), this.credentials);
  }

  /**
   * A WebSocket upgrade forwarded by the Worker's routes (which matched the path and passed what
   * they matched in headers): the runtime socket or a provider's capability socket. The
   * credential is authenticated, a provider credential bound to a provider attaches only that
   * one, and the credential's socket quota is checked before the upgrade.
   */
  upgrade(request: Request): Response {
    const ctx = this.kernel.ctx;
    const policy = this.#policy();
    const route = request.headers.get(SOCKET_ROUTE_HEADER);
    const consumer = request.headers.get(SOCKET_CONSUMER_HEADER) ?? "";
    const token = request.headers.get(SOCKET_TOKEN_HEADER) ?? "";
    if (route !== "runtime" && route !== "capability") return problemResponse(problem("NOT_FOUND", "No such route."));
    const auth = this.gate.authenticate(consumer, token, route === "runtime" ? "runtimeConnect" : "connect");
    if (!auth.ok) return problemResponse(auth.error);
    const { caller } = auth.value;
    const providerId = request.headers.get(SOCKET_PROVIDER_HEADER) ?? "";
    if (route === "capability" && caller.subjectId !== null && caller.subjectId !== providerId) {
      return problemResponse(problem("FORBIDDEN", "This provider credential attaches only its own provider."));
    }
    const quota = socketQuota(ctx, caller.credentialId, policy.limits);
    if (!quota.ok) return problemResponse(quota.error);
    return route === "runtime"
      ? acceptRuntimeSocket(ctx, this.runtime, caller.credentialId, policy)
      : connectProvider(ctx, this.capability, request, providerId, caller.credentialId);
  }

  /** One message of an accepted WebSocket, handled only once admitted (live credential, size, rate). */
  async message(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const [ctx, policy] = [this.kernel.ctx, this.#policy()];
    if (!admitMessage(ctx, ws, message, policy, this.kernel.rateMs())) return;
    if (isCapabilitySocket(ctx, ws)) return onCapabilityMessage(this.capability, ws, message);
    if (isRuntimeSocket(ctx, ws) && this.kernel.config.current() !== undefined)
      await onRuntimeMessage(this.runtime, ws, message, policy);
  }

  /** The peer closed an accepted WebSocket. */
  close(ws: WebSocket, code: number, reason: string): void {
    if (isCapabilitySocket(this.kernel.ctx, ws)) return onCapabilityClose(this.capability, ws);
    if (isRuntimeSocket(this.kernel.ctx, ws)) onRuntimeClose(ws, code, reason);
  }
}
