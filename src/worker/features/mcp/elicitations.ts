/**
 * URL-mode elicitation of an approval (MCP 2025-11-25; docs/mcp.md, "Approvals over MCP"): a
 * client that declared `elicitation.url` and calls, without a task, a write that waits for an
 * approver is sent, on the call's event stream, an `elicitation/create` with `mode: "url"`, the
 * console page of that approval and an `elicitationId`; once the approval is decided, the
 * session's GET stream (when one is open) gets `notifications/elicitation/complete` with that
 * id. What is watched lives in the object's memory only, bounded per session, and goes at the
 * decision, at the approval's expiry or with the session.
 * @module
 */
import type { JsonObject } from "../../../core/json";
import type { GateEvent } from "../../../contracts/events";
import type { EventBus } from "../events/bus";
import { approvalElicitation, derivedId } from "./call";
import type { McpContext } from "./context";
import { declaredOf } from "./exchange";
import type { ServerStreams } from "./streams";

/** Approvals one session watches at most for their decision; one more forgets the oldest. */
export const MAX_WATCHED_PER_SESSION = 8;

/** MCP's notification that an out-of-band elicitation completed. */
export const ELICITATION_COMPLETE = "notifications/elicitation/complete";

/** Whether a session's declared elicitation capability takes URL mode (`{ url: {} }`). */
export function takesUrlMode(elicitation: JsonObject | undefined): boolean {
  const url = elicitation?.["url"];
  return typeof url === "object" && url !== null && !Array.isArray(url);
}

/** The session whose client is told: its id and who it acts for (its listener's owner). */
export interface WatchingSession {
  readonly sessionId: string;
  readonly credentialId: string;
  readonly subjectId: string;
}

/** What the watch uses of the object: the bus (decisions), the GET streams, whether a session is still open, the approvals. */
export interface ElicitationHost {
  readonly events: EventBus;
  readonly streams: ServerStreams;
  live(sessionId: string): boolean;
  /** `TOOLGATE_PUBLIC_URL`'s origin (the console's), null when unset: then the origin the client reached. */
  readonly publicOrigin: string | null;
  /** Seconds until an approval of the consumer expires, undefined when there is no such approval. */
  expiresIn(config: McpContext["auth"]["config"], approvalId: string): number | undefined;
}

/** Where a request of the gate's own reaches the client: the relaying call's stream (relay.ts `ask`). */
interface Asker {
  ask(method: string, params: JsonObject): boolean;
}

interface Watched {
  readonly elicitationId: string;
  readonly timer: ReturnType<typeof setTimeout>;
}

interface SessionWatch {
  readonly unlisten: () => void;
  readonly approvals: Map<string, Watched>;
}

/** The approvals each session's client was sent a URL elicitation for, until their decision. */
export class ApprovalElicitations {
  readonly #host: ElicitationHost;
  readonly #sessions = new Map<string, SessionWatch>();

  constructor(host: ElicitationHost) {
    this.#host = host;
  }

  /** Approvals watched now, every session together. */
  get size(): number {
    let n = 0;
    for (const watch of this.#sessions.values()) n += watch.approvals.size;
    return n;
  }

  /**
   * Watches an approval for `session` for at most `ttlMs` (its expiry: an expired approval is
   * never decided). The session's one listener is opened on its credential's share of the bus;
   * when the bus refuses it, nothing is watched (the client only misses the completion).
   */
  watch(session: WatchingSession, approvalId: string, elicitationId: string, ttlMs: number): void {
    const watch = this.#sessions.get(session.sessionId) ?? this.#listen(session);
    if (watch === undefined) return;
    const approvals = watch.approvals;
    const known = approvals.get(approvalId);
    if (known !== undefined) clearTimeout(known.timer);
    approvals.delete(approvalId);
    const oldest = approvals.size >= MAX_WATCHED_PER_SESSION ? approvals.keys().next().value : undefined;
    if (oldest !== undefined) this.#drop(session.sessionId, oldest);
    const timer = setTimeout(() => this.#drop(session.sessionId, approvalId), Math.max(0, ttlMs));
    approvals.set(approvalId, { elicitationId, timer });
  }

  /**
   * How a relaying call shows its client an approval's console page: only when the client
   * declared URL-mode elicitation and the console has an origin (else undefined).
   */
  forCall(ctx: McpContext, relay: Asker): McpContext["elicitUrl"] {
    const origin = this.#host.publicOrigin ?? ctx.consoleOrigin;
    if (origin === null || !takesUrlMode(declaredOf(ctx.session).elicitation)) return undefined;
    return (tool, approvalId) => {
      const seconds = this.#host.expiresIn(ctx.auth.config, approvalId);
      if (seconds === undefined) return;
      this.elicit(ctx.session, relay, {
        approvalId,
        url: `${origin}/console/approvals/${approvalId}`,
        message: approvalElicitation(ctx, tool, approvalId),
        ttlMs: seconds * 1000,
      });
    };
  }

  /**
   * Sends `relay`'s client the URL elicitation of an approval (its id derives from the session and
   * the approval, so a repeated call's is the same) and watches the approval for its decision.
   */
  elicit(
    session: WatchingSession,
    relay: Asker,
    approval: { readonly approvalId: string; readonly url: string; readonly message: string; readonly ttlMs: number },
  ): void {
    const elicitationId = derivedId("mcpe", ["elicitation", session.sessionId, approval.approvalId]);
    const params = { mode: "url", message: approval.message, url: approval.url, elicitationId };
    if (relay.ask("elicitation/create", params))
      this.watch(session, approval.approvalId, elicitationId, approval.ttlMs);
  }

  #listen(session: WatchingSession): SessionWatch | undefined {
    const { sessionId } = session;
    const listening = this.#host.events.listen({
      credentialId: session.credentialId,
      approver: false,
      subjectId: session.subjectId,
      holds: () => this.#host.live(sessionId),
      hear: (event) => this.#hear(sessionId, event),
      end: () => this.#forget(sessionId),
    });
    if (!listening.ok) return undefined;
    const watch: SessionWatch = { unlisten: listening.value, approvals: new Map() };
    this.#sessions.set(sessionId, watch);
    return watch;
  }

  #hear(sessionId: string, event: GateEvent): void {
    if (event.type !== "approval.decided") return;
    const watched = this.#sessions.get(sessionId)?.approvals.get(event.data.approval_id);
    if (watched === undefined) return;
    this.#host.streams.notify(sessionId, {
      jsonrpc: "2.0",
      method: ELICITATION_COMPLETE,
      params: { elicitationId: watched.elicitationId },
    });
    this.#drop(sessionId, event.data.approval_id);
  }

  #drop(sessionId: string, approvalId: string): void {
    const watch = this.#sessions.get(sessionId);
    const watched = watch?.approvals.get(approvalId);
    if (watch === undefined || watched === undefined) return;
    clearTimeout(watched.timer);
    watch.approvals.delete(approvalId);
    if (watch.approvals.size === 0) {
      this.#sessions.delete(sessionId);
      watch.unlisten();
    }
  }

  /** The bus ended the session's listener (its credential no longer holds, or the session is gone). */
  #forget(sessionId: string): void {
    const watch = this.#sessions.get(sessionId);
    if (watch === undefined) return;
    for (const watched of watch.approvals.values()) clearTimeout(watched.timer);
    this.#sessions.delete(sessionId);
  }
}
