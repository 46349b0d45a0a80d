import type * as z from "../core/zod";
import type { CapabilityDetachPost, CapabilityObservationPost, ProviderSocketMessage } from "../contracts/capability";
import { observationFor } from "./observation";
import {
  call,
  consumerPath,
  readWire,
  writeWire,
  type ClientProblem,
  type ClientResult,
  type GateOptions,
} from "./transport";
import type { BoundEffect, CapabilityObservation, RequestKey, U64 } from "./types";

/** The WebSocket subprotocol of providers. */
export const PROVIDER_PROTOCOL = "toolgate-provider-v1";

/**
 * Answers one effect: an observation for an `invoke` (sent back to the gate), or `null`
 * (nothing to report, e.g. for a `cancel`).
 */
export type EffectHandler = (
  effect: BoundEffect,
) => Promise<CapabilityObservation | null> | CapabilityObservation | null;

/** A provider's options: which provider it is and how it answers effects. */
export interface ProviderOptions extends GateOptions {
  readonly providerId: string;
  readonly onEffect: EffectHandler;
  /** Called with each observation's outcome (`{"Ok": …}` or `{"Err": …}`). */
  readonly onOutcome?: (outcome: unknown) => void;
  /** A WebSocket constructor (defaults to the global one). */
  readonly WebSocket?: new (url: string, protocols?: string | string[]) => WebSocket;
}

/** A provider attached over a WebSocket. */
export interface ProviderConnection {
  readonly bindingId: U64;
  /** Closes the socket (the gate detaches the binding). */
  close(): void;
  /** Resolves when the socket has closed. */
  readonly closed: Promise<void>;
}

/**
 * Attaches a provider over a WebSocket. The credential travels as the `bearer.<credential>`
 * subprotocol (browsers cannot set headers on a WebSocket). Resolves once attached, or with
 * `CONNECT_REFUSED` when the gate refuses the upgrade (a browser does not see the problem:
 * wrong credential, provider already attached, …; the long-poll `attach` shows the reason).
 */
export function connectProvider(options: ProviderOptions): Promise<ClientResult<ProviderConnection>> {
  const url = consumerPath(options, `/capability/providers/${encodeURIComponent(options.providerId)}/connect`).replace(
    /^http/,
    "ws",
  );
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  const ws = new Socket(url, [PROVIDER_PROTOCOL, `bearer.${options.token}`]);
  let nextId = 1;
  const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve()));
  return new Promise((resolve) => {
    let attached = false;
    ws.addEventListener("close", (event: CloseEvent) => {
      if (!attached)
        resolve({
          ok: false,
          problem: { status: 0, code: "CONNECT_REFUSED", detail: `the socket closed before attaching (${event.code})` },
        });
    });
    ws.addEventListener("message", (event: MessageEvent) => {
      const frame = readWire(String(event.data));
      // Frames this client does not know (or that lack what it reads) are ignored.
      if (!isRecord(frame)) return;
      if (frame.type === "attached" && isU64(frame.binding_id)) {
        attached = true;
        resolve({ ok: true, value: { bindingId: frame.binding_id, close: () => ws.close(1000, "done"), closed } });
      } else if (frame.type === "effect" && isBoundEffect(frame.envelope)) {
        const bound = frame.envelope;
        void Promise.resolve(options.onEffect(bound)).then((observation) => {
          if (observation === null) return;
          const message: z.input<typeof ProviderSocketMessage> = {
            type: "observation",
            id: nextId++,
            observation: observationFor(bound, observation),
          };
          ws.send(writeWire(message));
        });
      } else if (frame.type === "observation-outcome") {
        options.onOutcome?.(frame.result);
      }
    });
  });
}

// The gate writes its socket frames from the engine's own records (there is no contract for
// gate → provider frames). These guards check the structure the provider relies on (tags,
// identifiers, u64s), not each enum member, as `call` trusts the gate's answers.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isU64(value: unknown): value is U64 {
  return (
    (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) ||
    (typeof value === "bigint" && value >= 0n)
  );
}

function isRequestKey(value: unknown): value is RequestKey {
  return (
    isRecord(value) &&
    typeof value.consumer_id === "string" &&
    typeof value.actor_id === "string" &&
    isU64(value.local_id)
  );
}

function isEffect(value: unknown): value is BoundEffect["effect"]["effect"] {
  if (!isRecord(value)) return false;
  const { invoke, cancel } = value;
  if (isRecord(invoke)) {
    return (
      typeof invoke.consumer_id === "string" &&
      typeof invoke.actor_id === "string" &&
      typeof invoke.capability_id === "string" &&
      typeof invoke.resource_scope_id === "string" &&
      Array.isArray(invoke.payload) &&
      invoke.payload.every((byte) => typeof byte === "number")
    );
  }
  return isRecord(cancel) && typeof cancel.reason === "string";
}

/** A `ProviderBoundCapabilityEffectEnvelope` as the gate sends it in an `effect` frame. */
function isBoundEffect(value: unknown): value is BoundEffect {
  if (!isRecord(value) || !isU64(value.binding_id) || !isRecord(value.effect)) return false;
  const e = value.effect;
  return (
    isU64(e.sequence) &&
    isU64(e.operation_id) &&
    isRequestKey(e.request_key) &&
    isU64(e.instance_id) &&
    isU64(e.generation) &&
    typeof e.provider_id === "string" &&
    isU64(e.deadline_tick) &&
    isEffect(e.effect)
  );
}

/**
 * A provider attached by HTTP long-poll (for clients that cannot hold a socket): attach,
 * poll effects (acknowledging what was handled), post observations, detach.
 */
export class ProviderPoller {
  #binding: U64 | null = null;
  #after: U64 | null = null;
  #running = false;

  constructor(readonly options: ProviderOptions) {}

  #path(suffix: string): string {
    return `/capability/providers/${encodeURIComponent(this.options.providerId)}/${suffix}`;
  }

  /** Attaches (the lease lives while polls keep coming). */
  async attach(): Promise<ClientResult<{ provider_id: string; binding_id: U64; lease_ms: number }>> {
    const result = await call<{ provider_id: string; binding_id: U64; lease_ms: number }>(
      this.options,
      "POST",
      this.#path("attach"),
    );
    if (result.ok) this.#binding = result.value.binding_id;
    return result;
  }

  /** One poll: handles each effect and posts its observation. Answers how many effects came. */
  async pollOnce(waitMs: number): Promise<ClientResult<number>> {
    if (this.#binding === null) throw new Error("attach first");
    const after = this.#after === null ? "" : `&after=${this.#after.toString()}`;
    const res = await call<{ effects: BoundEffect[] }>(
      this.options,
      "GET",
      `${this.#path("effects")}?binding_id=${this.#binding.toString()}${after}&wait=${waitMs}`,
    );
    if (!res.ok) return res;
    for (const bound of res.value.effects) {
      const observation = await this.options.onEffect(bound);
      if (observation !== null) {
        const post: z.input<typeof CapabilityObservationPost> = {
          binding_id: this.#binding,
          observation: observationFor(bound, observation),
        };
        const posted = await call(this.options, "POST", this.#path("observations"), post);
        this.options.onOutcome?.(posted.ok ? posted.value : { problem: posted.problem });
      }
      this.#after = bound.effect.sequence;
    }
    return { ok: true, value: res.value.effects.length };
  }

  /** Polls until {@link stop} (each poll waits up to `waitMs`); answers the problem that ended it, if any. */
  async run(waitMs = 20_000): Promise<ClientProblem | null> {
    this.#running = true;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() clears it while a poll is awaited
    while (this.#running) {
      const result = await this.pollOnce(waitMs);
      if (!result.ok) {
        this.#running = false;
        return result.problem;
      }
    }
    return null;
  }

  /** Stops polling and detaches (requests in flight end as provider-detached). */
  async stop(): Promise<ClientResult<unknown>> {
    this.#running = false;
    if (this.#binding === null) throw new Error("attach first");
    const detach: z.input<typeof CapabilityDetachPost> = { binding_id: this.#binding };
    return call(this.options, "POST", this.#path("detach"), detach);
  }
}
