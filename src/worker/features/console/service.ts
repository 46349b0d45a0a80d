/**
 * The approver console's object side (docs/console.md): an approver credential exchanged for a
 * short-lived session, and the session's calls: the approvals page's data, one approval, a
 * decision (bound to the session's CSRF token and the digest shown), the live stream of
 * approval events, and sign-out. A session acts for the credential it was made with: a revoked
 * credential, or a subject no longer among the consumer's approvers, ends it.
 * @module
 */
import { randomHex } from "../../kernel/random-id";
import { credentialKinds, type Operation } from "../../../contracts/access";
import { withoutArguments } from "../../../contracts/events";
import { canonicalJson, sha256Hex } from "../../../core/json";
import { credentialShape } from "../credentials/format";
import { problem, UNAUTHENTICATED } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { secretsEqual } from "../../http/timing-safe";
import type { ConsumerRecord } from "../consumers/service";
import { eventStream, sseEvent } from "../events/stream";
import { editedArguments } from "../tool-calls/approval-decision";
import { approvalView } from "../tool-calls/approval-view";
import type { ToolCallService } from "../tool-calls/service";
import type { ToolCallServices } from "../tool-calls/services";
import type { CredentialService } from "../credentials/service";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import { ConsoleSessionStore, type StoredSession } from "./store";
import type { ShadowPolicies, ShadowSummary } from "../tools/shadow";
import {
  auditSection,
  consoleApproval,
  consoleSettled,
  type ConsoleApproval,
  type ConsoleIdentity,
  type ConsolePage,
  type ConsoleSettled,
} from "./view";

/** A session's absolute lifetime (seconds from sign-in). */
export const CONSOLE_SESSION_SECONDS = 3600;
/** A session ends after this many seconds without a page, an approval read or a decision. */
export const CONSOLE_IDLE_SECONDS = 900;
/** Live sessions one credential keeps; signing in again beyond this ends its oldest. */
export const CONSOLE_SESSIONS_PER_CREDENTIAL = 16;
/** The live stream closes after this long at most (the browser reconnects, and the session is checked again). */
export const CONSOLE_STREAM_SECONDS = 300;
/** Rows of the decided list and of the audit list on the page. */
export const CONSOLE_LIST_ITEMS = 20;

/** One call of a signed-in session. */
export type ConsoleCall =
  | { readonly kind: "page" }
  /** `touch`: a page the approver opened (activity), not the script's read of a new or settled approval. */
  | { readonly kind: "approval"; readonly approvalId: string; readonly touch: boolean }
  | {
      readonly kind: "decide";
      readonly csrf: string;
      readonly approvalId: string;
      readonly decision: "approve" | "deny" | "edit";
      readonly approvalDigest: string;
      /** The approver's words (a denial's and an edit's reach the model). */
      readonly reason?: string;
      /** An edit's arguments as JSON text, read here with the strict reader. */
      readonly argumentsJson?: string;
    }
  | { readonly kind: "events" }
  | { readonly kind: "shadow" }
  | { readonly kind: "signOut"; readonly csrf: string };

/** The answer of a {@link ConsoleCall}. */
export type ConsoleReply =
  | { readonly kind: "page"; readonly page: ConsolePage }
  | {
      readonly kind: "approval";
      readonly identity: ConsoleIdentity;
      readonly pending: ConsoleApproval | null;
      readonly settled: ConsoleSettled | null;
    }
  /** The recorded decision as canonical JSON (`ApprovalDecisionView`). */
  | { readonly kind: "decided"; readonly json: string }
  | { readonly kind: "stream"; readonly body: ReadableStream<Uint8Array> }
  /** The data tools' shadow rules and their disagreements (read-only; ./shadow-page.ts). */
  | { readonly kind: "shadow"; readonly identity: ConsoleIdentity; readonly tools: readonly ShadowSummary[] }
  | { readonly kind: "signedOut" };

/** What a new session answers: its CSRF token and when it ends at the latest. */
export interface ConsoleSignedIn {
  readonly csrf: string;
  readonly expiresAt: number;
}

/** The operations of the access table each call makes (every one must admit approvers). */
const CALL_OPERATIONS: Record<ConsoleCall["kind"], readonly Operation[]> = {
  page: ["listApprovals", "consoleAudit"],
  approval: ["listApprovals"],
  decide: ["decideApproval"],
  events: ["listApprovals"],
  shadow: ["consoleShadow"],
  signOut: ["consoleSignIn"],
};

/** What the console uses of the kernel: its sessions table, the environment, the audit chain, the clock, one transaction step, the configuration, the limits and the events bus. */
type ConsoleKernel = Pick<
  ObjectKernel,
  "sql" | "env" | "audit" | "now" | "transaction" | "config" | "limits" | "events"
>;

const CSRF_REFUSED = problem(
  "CSRF_REFUSED",
  "The request does not carry this session's CSRF token; nothing was changed.",
);

function identityOf(config: ConsumerRecord, session: StoredSession, now: number): ConsoleIdentity {
  return {
    consumer: config.name,
    approverId: session.approverId,
    csrf: session.csrfToken,
    now,
    sessionExpiresAt: session.expiresAt,
  };
}

/** The console's sessions and calls. */
export class ConsoleService {
  readonly #store: ConsoleSessionStore;

  constructor(
    private readonly kernel: ConsoleKernel,
    /** Whether a session's credential still holds, and when it expires. */
    private readonly credentials: CredentialService,
    private readonly toolCalls: ToolCallServices,
    /** Who signs in: an approver credential of one of the consumer's approvers. */
    private readonly gate: Gatekeeper,
    /** The data tools' shadow rules, read by the shadow page. */
    private readonly shadow: Pick<ShadowPolicies, "summaries">,
  ) {
    this.#store = new ConsoleSessionStore(kernel.sql);
  }

  /** Sign-in: an approver credential (`consoleSignIn` of the access table) exchanged for a session ({@link open}). */
  signIn(consumer: string, token: string, sessionId: string): Outcome<ConsoleSignedIn> {
    const [who, credentialId] = [
      this.gate.approver(consumer, token, "consoleSignIn"),
      credentialShape(token)?.credentialId,
    ];
    return !who.ok
      ? who
      : credentialId === undefined
        ? fail(UNAUTHENTICATED)
        : ok(this.open(who.value.approverId, credentialId, sessionId));
  }

  /** One call of a signed-in session of this consumer ({@link run}); another consumer's name is `UNAUTHENTICATED`. */
  call(consumer: string, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply> {
    const config = this.kernel.config.current();
    return config !== undefined && config.name === consumer ? this.run(config, sessionId, call) : fail(UNAUTHENTICATED);
  }

  /**
   * The approver a live session of this consumer acts for (a page read counts as activity), for
   * another feature's console section; with `csrf`, only when it is the session's token.
   */
  sessionFor(
    consumer: string,
    sessionId: string,
    csrf: string | null,
  ): Outcome<{ config: ConsumerRecord; identity: ConsoleIdentity }> {
    const config = this.kernel.config.current();
    if (config === undefined || config.name !== consumer) return fail(UNAUTHENTICATED);
    const session = this.#session(config, sessionId, true);
    if (session === null) return fail(UNAUTHENTICATED);
    if (csrf !== null && !secretsEqual(csrf, session.csrfToken)) return fail(CSRF_REFUSED);
    return ok({ config, identity: identityOf(config, session, this.kernel.now()) });
  }

  /**
   * A new session for an authenticated approver (`sessionId`: the Worker's random, tagged id;
   * only its SHA-256 is stored). Ended sessions are deleted first, and a credential keeps at
   * most {@link CONSOLE_SESSIONS_PER_CREDENTIAL}.
   */
  open(approverId: string, credentialId: string, sessionId: string): ConsoleSignedIn {
    const now = this.kernel.now();
    const csrf = randomHex(32);
    const expiresAt = now + CONSOLE_SESSION_SECONDS;
    this.kernel.transaction(() => {
      this.#store.purge(now, now - CONSOLE_IDLE_SECONDS);
      this.#store.insert({
        sessionSha256: sha256Hex(sessionId),
        credentialId,
        approverId,
        csrfToken: csrf,
        createdAt: now,
        lastSeenAt: now,
        expiresAt,
      });
      this.#store.trim(credentialId, CONSOLE_SESSIONS_PER_CREDENTIAL);
    });
    // A session the trim ended stops streaming now.
    this.kernel.events.recheck();
    return { csrf, expiresAt };
  }

  /** Whether a stored session may still act at `now` for the consumer as configured. */
  #valid(session: StoredSession, config: ConsumerRecord, now: number): boolean {
    return (
      session.expiresAt > now &&
      session.lastSeenAt + CONSOLE_IDLE_SECONDS > now &&
      this.credentials.isLive(session.credentialId) &&
      config.approverSubjects.includes(session.approverId)
    );
  }

  /** The live session of an id (an ended one is deleted); `touch` counts the call as activity. */
  #session(config: ConsumerRecord, sessionId: string, touch: boolean): StoredSession | null {
    const hash = sha256Hex(sessionId);
    const now = this.kernel.now();
    return this.kernel.transaction(() => {
      const session = this.#store.get(hash);
      if (session === undefined) return null;
      if (!this.#valid(session, config, now)) {
        this.#store.delete(hash);
        return null;
      }
      if (touch) this.#store.touch(hash, now);
      return session;
    });
  }

  /** One call of a session; an unknown or ended session is `UNAUTHENTICATED`, a wrong CSRF token `CSRF_REFUSED`. */
  run(config: ConsumerRecord, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply> {
    if (CALL_OPERATIONS[call.kind].some((operation) => !credentialKinds(operation).includes("approver")))
      return fail(problem("FORBIDDEN", "Approvers may not make this call."));
    const session = this.#session(config, sessionId, call.kind === "approval" ? call.touch : call.kind !== "events");
    if (session === null) return fail(UNAUTHENTICATED);
    if ((call.kind === "decide" || call.kind === "signOut") && !secretsEqual(call.csrf, session.csrfToken))
      return fail(CSRF_REFUSED);
    const plane = this.toolCalls.for(config);
    const now = this.kernel.now();
    switch (call.kind) {
      case "page":
        return ok({ kind: "page", page: this.#page(config, plane, session, now) });
      case "approval":
        return this.#approval(config, plane, session, call.approvalId, now);
      case "decide": {
        const reason = call.reason === undefined ? {} : { reason: call.reason };
        const edited = call.decision === "edit" ? editedArguments(call.argumentsJson ?? "") : ok(undefined);
        if (!edited.ok) return edited;
        const args = edited.value === undefined ? {} : { arguments: edited.value };
        const decision = { verdict: call.decision, digest: call.approvalDigest, ...reason, ...args };
        const decided = plane.decide(call.approvalId, session.approverId, decision, now);
        return decided.ok ? ok({ kind: "decided", json: canonicalJson(decided.value) }) : decided;
      }
      case "events": {
        // A console stream is a live listener of its credential, within its share and the slots kept for approvers.
        const stream = this.#stream(session, this.#pending(config, plane, session, now), now);
        return stream.ok ? ok({ kind: "stream", body: stream.value }) : stream;
      }
      case "shadow":
        return ok({ kind: "shadow", identity: identityOf(config, session, now), tools: this.shadow.summaries(20) });
      case "signOut":
        this.kernel.transaction(() => this.#store.delete(session.sessionSha256));
        this.kernel.events.recheck();
        return ok({ kind: "signedOut" });
    }
  }

  /** The first page of pending approvals (as the approvals list answers it), and whether more follow. */
  #pending(
    config: ConsumerRecord,
    plane: ToolCallService,
    session: StoredSession,
    now: number,
  ): { items: ConsoleApproval[]; more: boolean } {
    const list = plane.listApprovals(
      {
        tenantId: config.name,
        approverId: session.approverId,
        cursor: null,
        pageItems: this.kernel.limits().page_items,
      },
      now,
    );
    if (!list.ok) throw new Error("the first page of approvals was refused");
    const items: ConsoleApproval[] = [];
    for (const view of list.value.approvals) {
      const spec = plane.engine.registry.get(view.tool);
      if (spec !== undefined) items.push(consoleApproval(view, spec));
    }
    return { items, more: list.value.next_cursor !== null };
  }

  #page(config: ConsumerRecord, plane: ToolCallService, session: StoredSession, now: number): ConsolePage {
    const { items: pending, more } = this.#pending(config, plane, session, now);
    const decided = plane.book
      .decidedPage(null, CONSOLE_LIST_ITEMS)
      .records.map((record) => consoleSettled(record, now));
    return {
      ...identityOf(config, session, now),
      pending,
      morePending: more,
      decided,
      audit: auditSection(this.kernel.audit, this.kernel.env, config.name, CONSOLE_LIST_ITEMS),
    };
  }

  #approval(
    config: ConsumerRecord,
    plane: ToolCallService,
    session: StoredSession,
    approvalId: string,
    now: number,
  ): Outcome<ConsoleReply> {
    const record = plane.book.get(approvalId);
    const spec = record === undefined ? undefined : plane.engine.registry.get(record.call.name);
    // A tool the consumer no longer enables cannot be decided: its approvals are not shown.
    if (record === undefined || spec === undefined) return fail(problem("NOT_FOUND", "No such approval."));
    const reply = { kind: "approval", identity: identityOf(config, session, now) } as const;
    if (record.state === "pending" && record.expires_at > now) {
      return ok({
        ...reply,
        pending: consoleApproval(approvalView(record, spec, config.name, session.approverId), spec),
        settled: null,
      });
    }
    return ok({ ...reply, pending: null, settled: consoleSettled(record, now) });
  }

  /**
   * The session's live stream: first `console.pending` (the ids pending now, so a page that
   * reconnects drops what was decided meanwhile and reads what it missed), then
   * `approval.requested` and `approval.decided` (without arguments; the page reads a new
   * approval's view itself). It closes at the session's end (its credential's expiry included)
   * or after {@link CONSOLE_STREAM_SECONDS}, and as soon as the session ended meanwhile (sign-out,
   * revocation, its subject no longer an approver): nothing is sent after.
   */
  #stream(
    session: StoredSession,
    pending: { items: readonly ConsoleApproval[] },
    now: number,
  ): Outcome<ReadableStream<Uint8Array>> {
    const expiry = this.credentials.expiresAt(session.credentialId);
    const ends = Math.min(session.expiresAt, session.lastSeenAt + CONSOLE_IDLE_SECONDS, expiry ?? session.expiresAt);
    const ids = pending.items.map((item) => item.view.approval_id);
    const holds = (): boolean => {
      const stored = this.#store.get(session.sessionSha256);
      const config = this.kernel.config.current();
      return stored !== undefined && config !== undefined && this.#valid(stored, config, this.kernel.now());
    };
    return eventStream(this.kernel.events, {
      owner: { credentialId: session.credentialId, approver: true, holds },
      first: [sseEvent("console.pending", String(now), canonicalJson({ approval_ids: ids }))],
      maxSeconds: Math.max(1, Math.min(CONSOLE_STREAM_SECONDS, ends - now)),
      accept: (event) =>
        event.type === "approval.requested" || event.type === "approval.decided"
          ? sseEvent(event.type, event.data.approval_id, canonicalJson(withoutArguments(event.data)))
          : null,
    });
  }
}
