/**
 * The service worker's one provider attachment: attach over the provider WebSocket, keep the
 * socket (and with it the service worker) alive, attach again with backoff when it drops.
 *
 * A Chrome 116+ extension service worker stays alive while WebSocket messages flow at least
 * every 30 s, so an attached worker pings every {@link PING_MS}; the gate answers each ping,
 * and a socket that stays silent for {@link SILENCE_MS} is given up. When the browser stops
 * the worker anyway (between retries, say), the extension's periodic alarm wakes it and
 * {@link Attachment.ensure} attaches again.
 * @module
 */
import {
  connectProvider,
  type ClientResult,
  type EffectHandler,
  type ProviderConnection,
} from "toolgate/capability-provider";
import type { ProviderStatus, Settings } from "./settings";

/** How often an attached worker pings the gate (under the service worker's 30 s idle limit). */
export const PING_MS = 20_000;
/** How long a socket may stay silent (no pong, no effect) before it is given up. */
export const SILENCE_MS = 50_000;
/** An attempt not attached within this long is given up (its socket closed). */
export const ATTACH_TIMEOUT_MS = 15_000;
/** The first retry waits about this long; each failure doubles it, up to {@link BACKOFF_MAX_MS}. */
export const BACKOFF_MIN_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;

/** The ping frame (`{"type":"ping"}` in the provider socket's protocol). */
const PING = JSON.stringify({ type: "ping" });

/** The wait before retry number `failures + 1`: between half and all of the doubled step (`random` in [0, 1)). */
export function backoffDelay(failures: number, random: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(failures, 16));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/** What the attachment needs from its service worker. */
export interface AttachmentHooks {
  /** The stored settings, or `null` before the options page saved any. */
  readonly settings: () => Promise<Settings | null>;
  readonly onEffect: EffectHandler;
  /** Publishes a status change (for the options page and the toolbar badge). */
  readonly report: (status: ProviderStatus) => void;
}

/** A socket as the attachment watches it: the instance and when the gate was last heard. */
interface Watched {
  socket: WebSocket | null;
  heardAt: number;
}

/** A WebSocket constructor for `connectProvider` that records its socket and every frame heard. */
function watchedSocket(watched: Watched): new (url: string, protocols?: string | string[]) => WebSocket {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      watched.socket = this;
      this.addEventListener("message", () => {
        watched.heardAt = Date.now();
      });
    }
  };
}

/** Pings every {@link PING_MS}; calls `silent` once the gate has not been heard for {@link SILENCE_MS}. Answers the stop. */
function keepAlive(watched: Watched, silent: () => void): () => void {
  const timer = setInterval(() => {
    if (Date.now() - watched.heardAt > SILENCE_MS) {
      clearInterval(timer);
      silent();
      return;
    }
    try {
      watched.socket?.send(PING);
    } catch {
      // A closing socket refuses to send; its close event follows.
    }
  }, PING_MS);
  return () => clearInterval(timer);
}

/** One provider per browser profile: the service worker holds exactly one of these. */
export class Attachment {
  /** Bumped by {@link restart}: work begun under an older epoch stops at its next step. */
  #epoch = 0;
  /** Attaching, attached, or waiting to retry: {@link ensure} leaves it alone. */
  #busy = false;
  #failures = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #close: (() => void) | null = null;

  constructor(
    readonly hooks: AttachmentHooks,
    readonly random: () => number = Math.random,
  ) {}

  /** Attaches unless attached, attaching or waiting to retry (called on every wake-up). */
  ensure(): void {
    if (this.#busy) return;
    this.#busy = true;
    const epoch = this.#epoch;
    this.#run(epoch).catch(() => this.#wait(epoch, "attaching failed"));
  }

  /** The settings changed: drop the current socket and attach again at once. */
  restart(): void {
    this.#epoch += 1;
    clearTimeout(this.#retry);
    this.#close?.();
    this.#close = null;
    this.#busy = false;
    this.#failures = 0;
    this.ensure();
  }

  async #run(epoch: number): Promise<void> {
    const settings = await this.hooks.settings();
    if (epoch !== this.#epoch) return;
    if (settings === null) {
      this.#busy = false;
      this.hooks.report({
        state: "unconfigured",
        detail: "not configured: set the gate, consumer, provider and credential",
      });
      return;
    }
    const who = `${settings.providerId} at ${settings.gateUrl} (consumer ${settings.consumer})`;
    this.hooks.report({ state: "connecting", detail: `attaching as ${who}` });
    const watched: Watched = { socket: null, heardAt: Date.now() };
    let attached: ClientResult<ProviderConnection>;
    // A socket stuck connecting (an unanswered address) is closed, which ends the attempt.
    const timeout = setTimeout(() => watched.socket?.close(), ATTACH_TIMEOUT_MS);
    try {
      const options = {
        baseUrl: settings.gateUrl,
        consumer: settings.consumer,
        token: settings.credential,
        providerId: settings.providerId,
      };
      attached = await connectProvider({
        ...options,
        onEffect: this.hooks.onEffect,
        WebSocket: watchedSocket(watched),
      });
    } catch {
      attached = {
        ok: false,
        problem: { status: 0, code: "CONNECT_FAILED", detail: "the socket could not be opened" },
      };
    } finally {
      clearTimeout(timeout);
    }
    if (epoch !== this.#epoch) {
      if (attached.ok) attached.value.close();
      return;
    }
    if (!attached.ok) return this.#wait(epoch, `not attached: ${attached.problem.detail}`);
    const connection = attached.value;
    this.#failures = 0;
    this.#close = () => connection.close();
    this.hooks.report({ state: "attached", detail: `attached as ${who}, binding ${connection.bindingId.toString()}` });
    let stopPings = (): void => undefined;
    const silent = new Promise<string>((resolve) => {
      stopPings = keepAlive(watched, () => resolve("the gate stopped answering"));
    });
    const why = await Promise.race([connection.closed.then(() => "the socket closed"), silent]);
    stopPings();
    if (epoch !== this.#epoch) return;
    this.#close = null;
    connection.close();
    this.#wait(epoch, why);
  }

  /** Waits out the backoff, then attaches again (unless {@link restart} came first). */
  #wait(epoch: number, why: string): void {
    if (epoch !== this.#epoch) return;
    const delay = backoffDelay(this.#failures, this.random());
    this.#failures += 1;
    this.hooks.report({ state: "waiting", detail: `${why}; attaching again in ${Math.ceil(delay / 1000)} s` });
    this.#retry = setTimeout(() => {
      if (epoch !== this.#epoch) return;
      this.#busy = false;
      this.ensure();
    }, delay);
  }
}
