/**
 * The approval routes' calls, after the object found the consumer: an approver's list and
 * decision (docs/approvals.md), and the status of one approval and the stream of approvals
 * for whoever waits on them (an agent: the approvals its own credential opened; an approver:
 * all). A status request may wait (long-poll, bounded) for the decision. A wait and a stream
 * are live listeners of the bus (events/bus.ts): within their credential's share, and ended as
 * soon as that credential no longer holds (revoked, expired, no longer an approver).
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import { digestForApprover } from "../../../core/tool-result/approval-book";
import { ApprovalConfirmationRequest, ApprovalDecisionRequest } from "../../../contracts/approval";
import type { AgentAdmission } from "../identity/admission";
import type { ApprovalEventData, GateEvent } from "../../../contracts/events";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { ConsumerRecord } from "../consumers/service";
import type { EventBus, ListenerOwner } from "../events/bus";
import { eventStream, sseEvent, STREAM_MAX_SECONDS } from "../events/stream";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import { received, type Carried } from "../../kernel/rpc";
import type { ObjectKernel } from "../../kernel/kernel";
import { approvalStatus } from "./events";
import type { ToolCallServices } from "./services";

/** Seconds a status request waits for a decision at most (`?wait=`). */
export const MAX_APPROVAL_WAIT_SECONDS = 60;

/** Pending approvals a new stream replays first, at most. */
const STREAM_REPLAY = 100;

/** One approval call of the routes. */
export type ApprovalsCall =
  | { readonly kind: "listApprovals"; readonly cursor: string | null }
  /** `request`: the body the Worker read and validated, as RPC carries it (an edit's arguments keep their floats). */
  | {
      readonly kind: "decideApproval";
      readonly approvalId: string;
      readonly request: Carried<ApprovalDecisionRequest>;
    }
  | { readonly kind: "getApproval"; readonly approvalId: string; readonly waitSeconds: number }
  /** The requesting end user's in-chat confirmation, relayed by the agent credential that opened the approval. */
  | {
      readonly kind: "confirmApproval";
      readonly approvalId: string;
      readonly request: Carried<ApprovalConfirmationRequest>;
    };

/** The approval calls of the consumer object: the routes' calls and the stream, each authenticated here. */
export class ApprovalCalls {
  constructor(
    /** The bus (waits and streams listen on it), the limits, the clock. */
    readonly kernel: Pick<ObjectKernel, "events" | "limits" | "now">,
    readonly gate: Gatekeeper,
    readonly toolCalls: ToolCallServices,
    /** Verifies the end user's token of a confirmation, as a call's. */
    readonly admission: AgentAdmission,
  ) {}

  /** An approver's list and decision; an approval's status, waiting for its decision. */
  call(consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>> {
    return approvalsCall(this, consumer, token, call);
  }

  /** The SSE stream of approvals (an agent's own, or all for an approver). */
  events(consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
    return approvalEvents(this, consumer, token);
  }
}

/** Who looks at approvals: an approver (all of them) or an agent credential (those it opened). */
type Viewer =
  | { readonly kind: "approver"; readonly approverId: string }
  | { readonly kind: "agent"; readonly credentialId: string };

/** A viewer, its configuration, and what its waits and streams listen as. */
interface Viewing {
  readonly viewer: Viewer;
  readonly config: ConsumerRecord;
  readonly owner: ListenerOwner;
}

function viewerOf(
  deps: ApprovalCalls,
  consumer: string,
  token: string,
  operation: "getApproval" | "approvalEvents",
): Outcome<Viewing> {
  const auth = deps.gate.authenticate(consumer, token, operation);
  if (!auth.ok) return auth;
  const { caller, config } = auth.value;
  const { credentialId } = caller;
  if (caller.kind === "agent") {
    const subjectId = caller.principal === "subject" ? caller.subjectId : null;
    return ok({
      viewer: { kind: "agent", credentialId },
      config,
      owner: { credentialId, approver: false, subjectId, holds: () => deps.gate.holds(credentialId, null) },
    });
  }
  const subject = caller.subjectId;
  if (subject === null || !config.approverSubjects.includes(subject))
    return fail(problem("APPROVER_NOT_ALLOWED", "This subject is not an approver of the consumer."));
  return ok({
    viewer: { kind: "approver", approverId: subject },
    config,
    owner: { credentialId, approver: true, holds: () => deps.gate.holds(credentialId, subject) },
  });
}

/** Seconds until a credential expires, capped at `seconds` (a credential without expiry: `seconds`). */
function untilExpiry(deps: ApprovalCalls, credentialId: string, now: number, seconds: number): number {
  const expiresAt = deps.gate.expiresAt(credentialId);
  return expiresAt === null ? seconds : Math.min(seconds, expiresAt - now);
}

/** Whether a viewer sees an approval's events. */
function sees(viewer: Viewer, event: GateEvent): boolean {
  return viewer.kind === "approver" || event.credentialId === viewer.credentialId;
}

/** An approver's list and decision, and anyone's status request (`getApproval`). */
async function approvalsCall(
  deps: ApprovalCalls,
  consumer: string,
  token: string,
  call: ApprovalsCall,
): Promise<Outcome<string>> {
  if (call.kind === "getApproval") return approvalOf(deps, consumer, token, call.approvalId, call.waitSeconds);
  if (call.kind === "confirmApproval") return confirmation(deps, consumer, token, call.approvalId, call.request);
  const who = deps.gate.approver(consumer, token, call.kind);
  if (!who.ok) return who;
  const plane = deps.toolCalls.for(who.value.config);
  if (call.kind === "listApprovals") {
    const request = {
      tenantId: consumer,
      approverId: who.value.approverId,
      cursor: call.cursor,
      pageItems: deps.kernel.limits().page_items,
    };
    const page = plane.listApprovals(request, deps.kernel.now());
    return page.ok ? ok(canonicalJson(page.value)) : page;
  }
  const body = received(call.request, ApprovalDecisionRequest);
  const decided = plane.decide(
    call.approvalId,
    who.value.approverId,
    {
      verdict: body.decision,
      digest: body.approval_digest,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      // The strict reader's value, checked to be a plain object by the contract.
      ...(body.arguments === undefined ? {} : { arguments: body.arguments as JsonObject }),
    },
    deps.kernel.now(),
  );
  return decided.ok ? ok(canonicalJson(decided.value)) : decided;
}

/**
 * The requesting end user's decision (docs/approvals.md, "Who decides"): relayed by the agent
 * credential whose call opened the approval (another's looks absent), with the end user's token,
 * verified as the call's was; its subject must be the requester's (`PRINCIPAL_MISMATCH`), the
 * approval one its end user confirms (`END_USER_CONFIRMATION_NOT_OFFERED`), and `request_sha256`
 * the pending call's.
 */
async function confirmation(
  deps: ApprovalCalls,
  consumer: string,
  token: string,
  approvalId: string,
  request: Carried<ApprovalConfirmationRequest>,
): Promise<Outcome<string>> {
  const auth = deps.gate.authenticate(consumer, token, "confirmApproval");
  if (!auth.ok) return auth;
  const { caller, config } = auth.value;
  const body = received(request, ApprovalConfirmationRequest);
  const plane = deps.toolCalls.for(config);
  if (plane.book.openedBy(approvalId) !== caller.credentialId) return fail(problem("NOT_FOUND", "No such approval."));
  const endUser = await deps.admission.endUser(consumer, caller, config, deps.kernel.limits(), body.principal_token);
  if (!endUser.ok) return endUser;
  const decided = plane.decide(
    approvalId,
    endUser.value.principal.subject_id,
    {
      verdict: body.decision,
      digest: body.request_sha256,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
    },
    deps.kernel.now(),
    { requestSha256: body.request_sha256 },
  );
  return decided.ok ? ok(canonicalJson(decided.value)) : decided;
}

async function approvalOf(
  deps: ApprovalCalls,
  consumer: string,
  token: string,
  approvalId: string,
  waitSeconds: number,
): Promise<Outcome<string>> {
  const who = viewerOf(deps, consumer, token, "getApproval");
  if (!who.ok) return who;
  const { viewer, config, owner } = who.value;
  const book = deps.toolCalls.for(config).book;
  const record = book.get(approvalId);
  // An agent sees only what its own credential opened; another's looks absent.
  if (record === undefined || (viewer.kind === "agent" && book.openedBy(approvalId) !== viewer.credentialId))
    return fail(problem("NOT_FOUND", "No such approval."));
  const now = deps.kernel.now();
  const wait = untilExpiry(
    deps,
    owner.credentialId,
    now,
    Math.min(waitSeconds, MAX_APPROVAL_WAIT_SECONDS, record.expires_at - now),
  );
  if (record.state === "pending" && wait > 0) {
    const decided = decision(deps.kernel.events, owner, approvalId, wait * 1000);
    if (!decided.ok) return decided;
    await decided.value;
    // The answer goes only to a credential that still holds (not revoked nor expired meanwhile; an approver still one).
    const still = viewerOf(deps, consumer, token, "getApproval");
    if (!still.ok) return still;
  }
  const latest = book.get(approvalId) ?? record;
  const status = approvalStatus(latest, deps.kernel.now());
  // An approver reading a pending approval gets the digest its decision sends back, as its list shows it.
  const spec = deps.toolCalls.for(config).engine.registry.get(latest.call.name);
  if (viewer.kind !== "approver" || status.state !== "pending" || spec === undefined) return ok(canonicalJson(status));
  return ok(canonicalJson({ ...status, approval_digest: digestForApprover(latest, spec, viewer.approverId) }));
}

/** Resolves at the approval's decision, after `ms`, or once the owner's credential no longer holds; refused as the bus refuses a listener. */
function decision(bus: EventBus, owner: ListenerOwner, approvalId: string, ms: number): Outcome<Promise<void>> {
  let done = (): void => {};
  const answered = new Promise<void>((resolve) => (done = resolve));
  let unlisten = (): void => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finish = (): void => {
    unlisten();
    clearTimeout(timer);
    done();
  };
  const listening = bus.listen({
    credentialId: owner.credentialId,
    approver: owner.approver,
    subjectId: owner.subjectId ?? null,
    holds: () => owner.holds(),
    hear: (event) => {
      if (event.type === "approval.decided" && event.data.approval_id === approvalId) finish();
    },
    end: finish,
  });
  if (!listening.ok) return listening;
  unlisten = listening.value;
  timer = setTimeout(finish, ms);
  return ok(answered);
}

/** The SSE stream of approvals (`GET …/approvals/events`): the pending ones first, then each request and decision as it commits. */
function approvalEvents(deps: ApprovalCalls, consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
  const who = viewerOf(deps, consumer, token, "approvalEvents");
  if (!who.ok) return who;
  const { viewer, config, owner } = who.value;
  const now = deps.kernel.now();
  const pending = deps.toolCalls
    .for(config)
    .book.pendingOf(viewer.kind === "agent" ? viewer.credentialId : null, now, STREAM_REPLAY);
  const text = (name: string, data: ApprovalEventData): string =>
    sseEvent(name, `${data.approval_id}.${data.state}`, canonicalJson(data));
  return eventStream(deps.kernel.events, {
    owner,
    first: pending.map((record) => text("approval.requested", approvalStatus(record, now))),
    maxSeconds: untilExpiry(deps, owner.credentialId, now, STREAM_MAX_SECONDS),
    accept: (event) =>
      (event.type === "approval.requested" || event.type === "approval.decided") && sees(viewer, event)
        ? text(event.type, event.data)
        : null,
  });
}
