import { parseSurface } from "../../../core/wire";
import { problem, type Problem } from "../../http/problem";
import type { Caller } from "../credentials/service";
import type { Limits } from "../../kernel/limits";
import type { OutboxBounds } from "./store";

/**
 * The share of the outbox one credential's waiting events may hold: a quarter of each of the
 * consumer's bounds (at least one event, one byte), so no single credential fills the outbox.
 */
export const OUTBOX_CREDENTIAL_SHARE = 4;

/** The consumer's outbox bounds with the per-credential share. */
export function outboxBounds(limits: Limits): OutboxBounds {
  const maxEvents = limits.outbox_max_events;
  const maxBytes = limits.outbox_max_bytes;
  return {
    maxEvents,
    maxBytes,
    perCredential: {
      maxEvents: Math.max(1, Math.floor(maxEvents / OUTBOX_CREDENTIAL_SHARE)),
      maxBytes: Math.max(1, Math.floor(maxBytes / OUTBOX_CREDENTIAL_SHARE)),
    },
  };
}

const MISMATCH: Problem = problem("PRINCIPAL_MISMATCH", "This credential acts only for the subject it was issued for.");

/**
 * Whether a runtime credential may speak for `userId` in an event, an event ack or a purge: the
 * facade's subject rule (facade-admission.ts) without roles. A subject-bound credential speaks
 * only for its subject (`null`, an event kept before events recorded their user, is nobody's);
 * a host credential for any user.
 */
export function speaksFor(caller: Caller, userId: string | null): Problem | null {
  if (caller.principal !== "subject") return null;
  return userId !== null && userId === caller.subjectId ? null : MISMATCH;
}

/**
 * A purge's surface binds it to a user only as a client-personal surface (`cs1:cp:<user>`): a
 * subject-bound credential may purge only with its own; any other surface names no user it can
 * be held to, so it is refused. The purged thread itself is not bound to a user (checkpoints
 * are stored by thread only).
 */
export function purgeRefusal(caller: Caller, surfaceId: string): Problem | null {
  if (caller.principal !== "subject") return null;
  const surface = parseSurface(surfaceId);
  return speaksFor(caller, surface?.kind === "client_personal" ? surface.userId : null);
}
