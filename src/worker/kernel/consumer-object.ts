import { DurableObject } from "cloudflare:workers";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Env } from "../env";
import type { CapabilityService } from "../features/capability/service";
import type { EventBus } from "../features/events/bus";
import type { ObjectClock } from "./clock";
import { FEATURES, fireAlarm } from "./features";
import { ObjectKernel } from "./kernel";
import { trackMemory } from "./memory";
import { rpcProxy, type ObjectRpc } from "./object-rpc";
import { runOperation } from "./operations";
import { loadPolicyLanguage } from "./policy-language";
import { consumerServices, start } from "./services";

/** The one feature that accepts the object's WebSockets. */
const SOCKETS = FEATURES.find((feature) => feature.sockets !== undefined)?.sockets;

/**
 * One object per consumer (`idFromName(consumer)`): its configuration, credentials, engine state, approvals
 * and audit chain in SQLite. The kernel (./kernel) is what every feature shares; the services and the RPC
 * operations come from the registry (./features), and each operation's service authenticates its caller
 * against the access table. The Worker calls operations through `objectRpc(stub)` (./operations).
 */
export class ConsumerObject extends DurableObject<Env> {
  readonly #kernel = new ObjectKernel(this.ctx, this.env);
  readonly #s = consumerServices(this.#kernel, () => this.codeTools());
  /** The object's clock, events and capability engine (tests pin them through `runInDurableObject`). */
  readonly clock: ObjectClock = this.#kernel.clock;
  readonly events: EventBus = this.#kernel.events;
  readonly capability: CapabilityService = this.#s.capability;
  /** The operations called in the object's own isolate (benchmarks and tests, without an RPC hop). */
  readonly operations: ObjectRpc = rpcProxy(async (name, args) => runOperation(this.#s, name, args));

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    trackMemory(this, this.#s);
    // The policy language is loaded here, before any operation, not when the isolate starts (./policy-language).
    void ctx.blockConcurrencyWhile(async () => {
      await loadPolicyLanguage();
      start(this.#s);
    });
  }

  /** In-process tools of the embedding Worker; `createGate({ tools })` overrides this (src/worker/gate.ts). */
  protected codeTools(): readonly ToolSpec[] {
    return [];
  }

  /** One operation of the registry, by name (./operations). */
  async rpc(operation: string, args: readonly unknown[]): Promise<unknown> {
    return runOperation(this.#s, operation, args);
  }

  // WebSockets (the sockets feature): the upgrade the route matched, the Hibernation API; the shared alarm (./features).
  override async fetch(request: Request): Promise<Response> {
    if (SOCKETS === undefined) return new Response(null, { status: 404 });
    return SOCKETS.upgrade(this.#s, request);
  }
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return SOCKETS?.message(this.#s, ws, message);
  }
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    SOCKETS?.close(this.#s, ws, code, reason);
  }
  override async alarm(): Promise<void> {
    return fireAlarm(this.#s);
  }
}
