/**
 * The approval routes' calls, after the object found the consumer: an approver's list and
 * decision (docs/approvals.md), and the status of one approval and the stream of approvals
 * for whoever waits on them (an agent: the approvals its own credential opened; an approver:
 * all). A status request may wait (long-poll, bounded) for the decision.
 * @module
 */
import { canonicalJson } from "../../../core/json";
import { ApprovalDecisionRequest } from "../../../contracts/approval";
import type { ApprovalEventData, GateEvent } from "../../../contracts/events";
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import type { ConsumerRecord } from "../consumer/plane";
import type { EventBus } from "../events/bus";
import { eventStream, sseEvent } from "../events/stream";
import type { Gatekeeper } from "../gatekeeper";
import type { Limits } from "../limits";
import { approvalStatus } from "./events";
import type { ToolCallPlane } from "./plane";

/** Seconds a status request waits for a decision at most (`?wait=`). */
export const MAX_APPROVAL_WAIT_SECONDS = 60;

/** Live listeners (waiting requests and streams) one consumer holds at most. */
export const MAX_LIVE_LISTENERS = 256;

/** Pending approvals a new stream replays first, at most. */
const STREAM_REPLAY = 100;

/** One approval call of the routes. */
export type ApprovalsCall =
  | { readonly kind: "listApprovals"; readonly cursor: string | null }
  | { readonly kind: "decideApproval"; readonly approvalId: string; readonly request: ApprovalDecisionRequest }
  | { readonly kind: "getApproval"; readonly approvalId: string; readonly waitSeconds: number };

/** What the approval calls use of their object. */
export interface ApprovalsDeps {
  readonly gate: Gatekeeper;
  readonly bus: EventBus;
  readonly limits: Limits;
  plane(config: ConsumerRecord): ToolCallPlane;
  /** Unix seconds (the object's clock). */
  now(): number;
}

/** Who looks at approvals: an approver (all of them) or an agent credential (those it opened). */
type Viewer = { readonly kind: "approver"; readonly approverId: string } | { readonly kind: "agent"; readonly credentialId: string };

function viewerOf(deps: ApprovalsDeps, consumer: string, token: string, operation: "getApproval" | "approvalEvents"): Outcome<{ viewer: Viewer; config: ConsumerRecord }> {
  const auth = deps.gate.authenticate(consumer, token, operation);
  if (!auth.ok) return auth;
  const { caller, config } = auth.value;
  if (caller.kind === "agent") return ok({ viewer: { kind: "agent", credentialId: caller.credentialId }, config });
  const subject = caller.subjectId;
  if (subject === null || !config.approverSubjects.includes(subject)) return fail(problem("APPROVER_NOT_ALLOWED", "This subject is not an approver of the consumer."));
  return ok({ viewer: { kind: "approver", approverId: subject }, config });
}

/** Whether a viewer sees an approval's events. */
function sees(viewer: Viewer, event: GateEvent): boolean {
  return viewer.kind === "approver" || event.credentialId === viewer.credentialId;
}

/** An approver's list and decision, and anyone's status request (`getApproval`). */
export async function approvalsCall(deps: ApprovalsDeps, consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>> {
  if (call.kind === "getApproval") return approvalOf(deps, consumer, token, call.approvalId, call.waitSeconds);
  const who = deps.gate.approver(consumer, token, call.kind);
  if (!who.ok) return who;
  const plane = deps.plane(who.value.config);
  if (call.kind === "listApprovals") {
    const request = { tenantId: consumer, approverId: who.value.approverId, cursor: call.cursor, pageItems: deps.limits.page_items };
    const page = plane.listApprovals(request, deps.now());
    return page.ok ? ok(canonicalJson(page.value)) : page;
  }
  const body = ApprovalDecisionRequest.parse(call.request);
  const decided = plane.decide(call.approvalId, who.value.approverId, body.decision, body.approval_digest, deps.now());
  return decided.ok ? ok(canonicalJson(decided.value)) : decided;
}

async function approvalOf(deps: ApprovalsDeps, consumer: string, token: string, approvalId: string, waitSeconds: number): Promise<Outcome<string>> {
  const who = viewerOf(deps, consumer, token, "getApproval");
  if (!who.ok) return who;
  const { viewer, config } = who.value;
  const book = deps.plane(config).book;
  const record = book.get(approvalId);
  // An agent sees only what its own credential opened; another's looks absent.
  if (record === undefined || (viewer.kind === "agent" && book.openedBy(approvalId) !== viewer.credentialId)) return fail(problem("NOT_FOUND", "No such approval."));
  const now = deps.now();
  const wait = Math.min(waitSeconds, MAX_APPROVAL_WAIT_SECONDS, record.expires_at - now);
  if (record.state === "pending" && wait > 0) {
    if (deps.bus.listeners >= MAX_LIVE_LISTENERS) return fail(problem("QUOTA_EXCEEDED", "Too many requests wait on this consumer's approvals; retry shortly.", 1));
    await decision(deps.bus, approvalId, wait * 1000);
  }
  const latest = book.get(approvalId) ?? record;
  return ok(canonicalJson(approvalStatus(latest, deps.now())));
}

/** Resolves at the approval's decision, or after `ms`. */
function decision(bus: EventBus, approvalId: string, ms: number): Promise<void> {
  return new Promise((done) => {
    const finish = (): void => {
      unlisten();
      clearTimeout(timer);
      done();
    };
    const unlisten = bus.listen((event) => {
      if (event.type === "approval.decided" && event.data.approval_id === approvalId) finish();
    });
    const timer = setTimeout(finish, ms);
  });
}

/** The SSE stream of approvals (`GET …/approvals/events`): the pending ones first, then each request and decision as it commits. */
export function approvalEvents(deps: ApprovalsDeps, consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
  const who = viewerOf(deps, consumer, token, "approvalEvents");
  if (!who.ok) return who;
  const { viewer, config } = who.value;
  if (deps.bus.listeners >= MAX_LIVE_LISTENERS) return fail(problem("QUOTA_EXCEEDED", "Too many streams are open on this consumer's approvals; retry shortly.", 1));
  const now = deps.now();
  const pending = deps.plane(config).book.pendingOf(viewer.kind === "agent" ? viewer.credentialId : null, now, STREAM_REPLAY);
  const text = (name: string, data: ApprovalEventData): string => sseEvent(name, `${data.approval_id}.${data.state}`, canonicalJson(data));
  return ok(
    eventStream(deps.bus, {
      first: pending.map((record) => text("approval.requested", approvalStatus(record, now))),
      accept: (event) => ((event.type === "approval.requested" || event.type === "approval.decided") && sees(viewer, event) ? text(event.type, event.data) : null),
    }),
  );
}
