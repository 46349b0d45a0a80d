import type * as z from "../core/zod";
import type { CapabilityRequestBody } from "../contracts/capability";
import type { ApprovalConfirmationRequest, ApprovalDecisionView } from "../contracts/approval";
import type { ApprovalEventData } from "../contracts/events";
import type { ToolCallRequest, ToolCallResponse, ToolCallStatusRequest } from "../contracts/tool-call";
import type { ToolCallBatchRequest, ToolCallBatchResponse } from "../contracts/tool-call-batch";
import type { DECLARATION_FORMATS } from "../core/adapters/declarations";
import {
  call,
  callStream,
  idempotencyKeyHeader,
  query,
  readWire,
  serverEvents,
  type CallOptions,
  type ClientResult,
  type GateOptions,
} from "./transport";
import type {
  CapabilityDecision,
  CapabilityRequestInput,
  CapabilityRequestSnapshot,
  CompletionBatch,
  U64,
} from "./types";
import { toolCallBody, type ApiFamily, type ProfileAnswer, type ProfileCall, type Provider } from "./profiles";

/**
 * The answer to a tool call (`ToolCallResponse`): the model result and the provider-native
 * result item, with `approval_id` when an approval is pending and `status_ref` when the
 * outcome is unknown.
 */
export type ToolCallAnswer = z.output<typeof ToolCallResponse>;

/** An approval's status (`ApprovalStatus`): `pending`, `approved`, `denied`, `expired` or `withdrawn`. */
export type ApprovalStatus = z.output<typeof ApprovalEventData>;

/** An end user's in-chat confirmation (`ApprovalConfirmationRequest`). */
export type ApprovalConfirmationInput = z.input<typeof ApprovalConfirmationRequest>;

/** A recorded decision (`ApprovalDecision`). */
export type ApprovalDecisionAnswer = z.output<typeof ApprovalDecisionView>;

/** A tool call's request body (`ToolCallRequest`, as sent: server defaults may be left out). */
export type ToolCallInput = z.input<typeof ToolCallRequest>;

/** `POST …/tool-calls/status`'s body (`ToolCallStatusRequest`): the call again, plus its `status_ref`. */
export type ToolCallStatusInput = z.input<typeof ToolCallStatusRequest>;

/** The batch route's body (`ToolCallBatchRequest`): all the tool calls of one model turn. */
export type ToolCallBatchInput = z.input<typeof ToolCallBatchRequest>;

/** The batch route's answer (`ToolCallBatchResponse`): the turn's provider message and each call's answer. */
export type ToolCallBatchAnswer = z.output<typeof ToolCallBatchResponse>;

/** Options of one tool call. */
export interface ToolCallOptions {
  /**
   * Sent as the `Idempotency-Key` header (a Structured Field String); it fills
   * `context.idempotency_key` when the body has none, and must equal it when both are given.
   */
  readonly idempotencyKey?: string;
}

/** A model's tool-declaration format (`GET …/tools?format=`). */
export type DeclarationFormat = (typeof DECLARATION_FORMATS)[number];

/** A page of the enabled tools as a model's declarations (`GET …/tools` for an agent). */
export interface ToolDeclarationPage {
  readonly format: DeclarationFormat;
  /** Each tool in the format's own declaration shape (docs/http-api.md, "Tools"). */
  readonly tools: Array<Record<string, unknown>>;
  /** Null on the last page. */
  readonly next_cursor: string | null;
}

const keyed = (options: ToolCallOptions): CallOptions =>
  options.idempotencyKey === undefined
    ? {}
    : { headers: { "idempotency-key": idempotencyKeyHeader(options.idempotencyKey) } };

/** Seconds one status request waits at most (the gate's bound). */
const MAX_WAIT_SECONDS = 60;

/** `GET …/approvals/{id}?wait=` (agents and approvers): the approval's status, waiting up to `waitSeconds` (0–60) for a decision. */
export function approvalStatus(
  options: GateOptions,
  approvalId: string,
  waitSeconds: number,
): Promise<ClientResult<ApprovalStatus>> {
  const wait = Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.floor(waitSeconds)));
  return call(options, "GET", `/approvals/${encodeURIComponent(approvalId)}${wait === 0 ? "" : `?wait=${wait}`}`);
}

/** One event of the approval stream: `approval.requested` (the pending ones replayed first) or `approval.decided`. */
export interface ApprovalEvent {
  readonly event: string;
  /** `<approval_id>.<state>`. */
  readonly id: string;
  readonly approval: ApprovalStatus;
}

/**
 * `GET …/approvals/events` (agents: the approvals their calls opened; approvers: all): the
 * events as they arrive. The gate closes a stream after 300 s; the iteration then ends, and a
 * host that still waits opens it again (the pending ones are replayed first).
 */
export async function approvalEvents(options: GateOptions): Promise<ClientResult<AsyncGenerator<ApprovalEvent>>> {
  const stream = await callStream(options, "/approvals/events");
  if (!stream.ok) return stream;
  // The gate's own answer, read as `call` reads any answer: typed by its contract, not checked again here.
  const status = (data: string): ApprovalStatus => readWire(data) as ApprovalStatus;
  async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<ApprovalEvent> {
    for await (const e of serverEvents(body)) yield { event: e.event, id: e.id, approval: status(e.data) };
  }
  return { ok: true, value: events(stream.value) };
}

/** An agent host's client: tool calls and their status, approvals it waits on, capability requests and completions. */
export class AgentClient {
  constructor(readonly options: GateOptions) {}

  /** `POST …/tool-calls` (Tool Result v2; the body is a `ToolCallRequest`). */
  toolCall(body: ToolCallInput, options: ToolCallOptions = {}): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls", body, keyed(options));
  }

  /**
   * `POST …/tool-calls` typed by the call's profile: `provider`/`api_family` narrow the answer's
   * `provider_output` to that profile's shape, `provider_item` takes the vendor SDK's item as it
   * is, and the context's `adapter_revision` is derived ({@link toolCallBody}).
   */
  call<P extends Provider, F extends ApiFamily<P>>(
    body: ProfileCall<P, F>,
    options: ToolCallOptions = {},
  ): Promise<ClientResult<ProfileAnswer<P, F>>> {
    return call(this.options, "POST", "/tool-calls", toolCallBody(body), keyed(options));
  }

  /** `POST …/tool-calls/status`: the status of an unknown outcome (the call again, plus its `status_ref`). */
  toolCallStatus(body: ToolCallStatusInput, options: ToolCallOptions = {}): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls/status", body, keyed(options));
  }

  /**
   * `POST …/tool-calls/batch`: all the tool calls of one model turn, each its own gate call
   * (with its own `idempotency_key` in the body), answered as the provider's one message.
   */
  toolCallBatch(body: ToolCallBatchInput): Promise<ClientResult<ToolCallBatchAnswer>> {
    return call(this.options, "POST", "/tool-calls/batch", body);
  }

  /** `GET …/tools?format=`: a page of the enabled tools as declarations (json-schema when no format is given). */
  tools(options: { format?: DeclarationFormat; cursor?: string } = {}): Promise<ClientResult<ToolDeclarationPage>> {
    return call(this.options, "GET", `/tools${query({ format: options.format, cursor: options.cursor })}`);
  }

  /**
   * `GET …/approvals/{id}?wait=`: the status of an approval this credential's call opened; with
   * `waitSeconds` (at most 60) a pending approval's answer waits for the decision.
   */
  approval(approvalId: string, waitSeconds = 0): Promise<ClientResult<ApprovalStatus>> {
    return approvalStatus(this.options, approvalId, waitSeconds);
  }

  /**
   * `POST …/approvals/{id}/confirmation`: the requesting end user's answer in chat to an
   * approval this credential's call opened for a tool its end user confirms (`confirmed_by`),
   * with the end user's token and the pending call's `request_sha256` (docs/approvals.md, "Who decides").
   */
  confirmApproval(approvalId: string, body: ApprovalConfirmationInput): Promise<ClientResult<ApprovalDecisionAnswer>> {
    return call(this.options, "POST", `/approvals/${encodeURIComponent(approvalId)}/confirmation`, body);
  }

  /** The stream of the approvals this credential's calls opened ({@link approvalEvents}). */
  approvalEvents(): Promise<ClientResult<AsyncGenerator<ApprovalEvent>>> {
    return approvalEvents(this.options);
  }

  /**
   * A tool call that may wait for a human: when the gate answers `APPROVAL_REQUIRED`, waits
   * (long-polls, up to `maxWaitSeconds` in all, default 300) for the decision and, once
   * approved, sends the same call again so it runs. Answers the last answer: the result, the
   * refusal after a denial (`APPROVAL_INVALID`), or `APPROVAL_REQUIRED` when nobody decided in time.
   */
  async toolCallWithApproval(
    body: ToolCallInput,
    maxWaitSeconds = 300,
    options: ToolCallOptions = {},
  ): Promise<ClientResult<ToolCallAnswer>> {
    const first = await this.toolCall(body, options);
    const approvalId = first.ok ? first.value.approval_id : undefined;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- answers are read unchecked; a null id still means none
    if (!first.ok || approvalId === undefined || approvalId === null) return first;
    let left = maxWaitSeconds;
    while (left > 0) {
      const wait = Math.min(MAX_WAIT_SECONDS, left);
      const started = Date.now();
      const status = await this.approval(approvalId, wait);
      if (!status.ok) return status;
      if (status.value.state !== "pending") return this.toolCall(body, options);
      left -= Math.max(1, Math.round((Date.now() - started) / 1000));
    }
    return first;
  }

  /** `POST …/capability/requests`: the policy decision (a denial is a successful answer). */
  requestCapability(
    actorId: string,
    request: CapabilityRequestInput,
    providerBindingId?: U64 | null,
  ): Promise<ClientResult<CapabilityDecision>> {
    const body: z.input<typeof CapabilityRequestBody> =
      providerBindingId === undefined
        ? { actor_id: actorId, request }
        : { actor_id: actorId, request, provider_binding_id: providerBindingId };
    return call(this.options, "POST", "/capability/requests", body);
  }

  /** `GET …/capability/requests/{actor}/{local_id}`: the request's public record. */
  capabilityStatus(actorId: string, localId: U64): Promise<ClientResult<{ request: CapabilityRequestSnapshot }>> {
    return call(this.options, "GET", `/capability/requests/${encodeURIComponent(actorId)}/${localId.toString()}`);
  }

  /**
   * `POST …/capability/completions/drain`: takes the queued completions of one actor — the
   * credential's own subject, or (host credentials, which must name it) `actorId`.
   */
  drainCompletions(actorId?: string): Promise<ClientResult<CompletionBatch>> {
    const query = actorId === undefined ? "" : `?actor_id=${encodeURIComponent(actorId)}`;
    return call(this.options, "POST", `/capability/completions/drain${query}`);
  }
}
