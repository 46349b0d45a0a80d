/**
 * The gate's tools as an AI SDK tool set: each declaration the agent's credential is shown
 * (`GET …/tools?format=json-schema`) becomes a dynamic tool whose `execute` sends the call to the
 * gate. Approvals the gate requires reach the host one of two ways ({@link GateToolsOptions.approvals}).
 * @module
 */
import {
  dynamicTool,
  jsonSchema,
  type JSONSchema7,
  type ModelMessage,
  type ToolApprovalResponse,
  type ToolSet,
} from "ai";
import { AgentClient, type ApprovalStatus } from "../../client/agent";
import type { GateOptions } from "../../client/transport";
import {
  callRequest,
  DEFAULT_PROFILE,
  GateRefusal,
  isPending,
  modelOutput,
  sendCall,
  toModelOutput,
  type CallSettings,
  type GateProfile,
  type GateToolOutput,
} from "./gate-call";
import { approvalResponse, resumePending, waitForApproval, type ApprovalRequestLike, type Resumed } from "./approvals";
import { confirmInGate, endUserApproval, endUserResponse, type EndUserAnswer } from "./end-user";

/** Options of {@link gateTools}. */
export interface GateToolsOptions extends GateOptions {
  /** Whom the calls act for: required with a host credential, left out with a subject-bound one. */
  readonly principal?: { readonly subject_id: string; readonly roles: readonly string[] };
  /** The end user's JWT, with a token-verified credential. */
  readonly principalToken?: string;
  /** Labels the calls in the audit (docs/providers.md); the model result is the same under every profile. */
  readonly profile?: GateProfile;
  /**
   * Prefixes each call's idempotency key (`ai-sdk:<prefix><toolCallId>`): a conversation's id,
   * so that two conversations whose model reuses a tool call id stay two calls.
   */
  readonly keyPrefix?: string;
  /**
   * How a call that needs the gate's approvers reaches the host:
   * - `"result"` (default): `execute` answers a pending result (the approval id, who decides,
   *   the console link); {@link resumePending} runs the calls once decided.
   * - `"ai-sdk"`: the AI SDK's own flow. `needsApproval` asks the gate; a call the gate holds for
   *   an approver becomes a `tool-approval-request`, which {@link approvalResponse} answers once
   *   the approver decided; the approved call then runs in the next step.
   *
   * Either way, a tool whose writes its end user confirms (`confirmed_by: "end_user"`), called
   * with `principalToken`, asks in chat: the call the gate holds for the end user becomes a
   * `tool-approval-request` ({@link GateToolSet.asksEndUser}), answered with
   * {@link GateToolSet.endUserResponse}.
   */
  readonly approvals?: "result" | "ai-sdk";
  /** The most tools read (pages of the gate's list); 1000 by default. */
  readonly maxTools?: number;
}

/** The gate's tools as an AI SDK tool set, and the host's side of the approvals they wait on. */
export interface GateToolSet {
  readonly tools: ToolSet;
  /** {@link waitForApproval}: the approval's status once decided (or still pending after `maxWaitSeconds`). */
  waitForApproval(approvalId: string, maxWaitSeconds?: number): Promise<ApprovalStatus>;
  /** {@link approvalResponse}: the `tool-approval-response` to a request, once the gate's approver decided. */
  approvalResponse(request: ApprovalRequestLike, maxWaitSeconds?: number): Promise<ToolApprovalResponse>;
  /** {@link resumePending}: the messages with each pending result replaced once decided. */
  resumePending(messages: readonly ModelMessage[], maxWaitSeconds?: number): Promise<Resumed>;
  /**
   * True when the gate holds this request's call for the end user's own answer in chat (a tool
   * whose `confirmed_by` is `end_user`, called with the end user's token): answer it with
   * {@link GateToolSet.endUserResponse}; otherwise the gate's approvers decide ({@link GateToolSet.approvalResponse}).
   */
  asksEndUser(request: ApprovalRequestLike): boolean;
  /**
   * {@link endUserResponse}: posts the end user's answer in chat to the gate (with its token),
   * then answers the SDK's request: approved, the call runs once in the next step; denied, the
   * model reads the gate's refusal.
   */
  endUserResponse(request: ApprovalRequestLike, answer: EndUserAnswer): Promise<ToolApprovalResponse>;
}

/** A declaration of `GET …/tools?format=json-schema`. */
interface Declaration {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JSONSchema7;
  /** The requesting end user confirms the tool's writes that need a human (in chat). */
  readonly endUser: boolean;
}

function declarationOf(raw: Record<string, unknown>): Declaration {
  const { name, description, input_schema: schema, confirmed_by: confirmedBy } = raw;
  if (typeof name !== "string" || typeof description !== "string" || typeof schema !== "object" || schema === null)
    throw new TypeError("the gate answered a tool declaration without name, description or input_schema");
  return { name, description, input_schema: schema, endUser: confirmedBy === "end_user" };
}

/** True when `messages` hold the SDK's approval request for this call (it was held for the gate's approver). */
function heldBefore(messages: readonly ModelMessage[], toolCallId: string): boolean {
  return messages.some(
    (message) =>
      message.role === "assistant" &&
      typeof message.content !== "string" &&
      message.content.some((part) => part.type === "tool-approval-request" && part.toolCallId === toolCallId),
  );
}

/** Every declaration the credential is shown, page by page, at most `maxTools`. */
async function declarations(client: AgentClient, maxTools: number): Promise<Declaration[]> {
  const found: Declaration[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.tools(
      cursor === undefined ? { format: "json-schema" } : { format: "json-schema", cursor },
    );
    if (!page.ok) throw new GateRefusal(page.problem);
    for (const raw of page.value.tools) if (found.length < maxTools) found.push(declarationOf(raw));
    cursor = page.value.next_cursor ?? undefined;
  } while (cursor !== undefined && found.length < maxTools);
  return found;
}

/**
 * The consumer's tools this credential is shown, as an AI SDK tool set for `generateText`,
 * `streamText`, an `Agent` or a `useChat` route. Each call goes through the gate with an
 * idempotency key derived from its `toolCallId`, so a step sent again replays instead of running twice.
 */
export async function gateTools(options: GateToolsOptions): Promise<GateToolSet> {
  const client = new AgentClient(options);
  const settings: CallSettings = {
    client,
    profile: options.profile ?? DEFAULT_PROFILE,
    keyPrefix: options.keyPrefix ?? "",
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    ...(options.principalToken === undefined ? {} : { principalToken: options.principalToken }),
  };
  const viaSdk = options.approvals === "ai-sdk";
  // The gate approval each held call waits on, by toolCallId (set by needsApproval, read by approvalResponse).
  const held = new Map<string, string>();
  // The held calls whose approval is the end user's to confirm in chat, by toolCallId.
  const endUser = new Set<string>();
  const tools: ToolSet = {};
  for (const declaration of await declarations(client, options.maxTools ?? 1000)) {
    // Answers the needsApproval check already had, by toolCallId: the call ran there (it needed no approver).
    const decided = new Map<string, GateToolOutput>();
    const run = async (input: unknown, toolCallId: string): Promise<GateToolOutput> =>
      modelOutput(settings, await sendCall(settings, await callRequest(settings, declaration.name, input, toolCallId)));
    // A tool its end user confirms asks in chat whatever the mode, when the calls carry the end user's token.
    const inChat = declaration.endUser && settings.principalToken !== undefined;
    tools[declaration.name] = dynamicTool({
      description: declaration.description,
      inputSchema: jsonSchema(declaration.input_schema),
      execute: async (input, { toolCallId }) => {
        const known = decided.get(toolCallId);
        decided.delete(toolCallId);
        if (known !== undefined) return known;
        const output = await run(input, toolCallId);
        if (!inChat || !isPending(output)) return output;
        // The SDK runs a call it asked about only once approved: when the host answered the
        // request itself (a UI's approval), the end user's approval reaches the gate here.
        const approval = await endUserApproval(settings, output.approval.approval_id);
        if (approval === null) return output;
        await confirmInGate(settings, approval, true);
        return run(input, toolCallId);
      },
      toModelOutput: ({ output }) => toModelOutput(output),
      ...(viaSdk || inChat
        ? {
            needsApproval: async (
              input: unknown,
              { toolCallId, messages }: { toolCallId: string; messages: ModelMessage[] },
            ) => {
              // The SDK asks again before it runs an approved call: the answer stays yes, and the
              // gate is not asked (an approved call sent here would run before the SDK's execute).
              if (heldBefore(messages, toolCallId)) return true;
              let output: GateToolOutput;
              try {
                output = await run(input, toolCallId);
              } catch {
                // A refusal: execute sends the call again and the model reads the refusal as the tool's error.
                return false;
              }
              if (isPending(output)) {
                const approvalId = output.approval.approval_id;
                const asksEndUser = inChat && (await endUserApproval(settings, approvalId)) !== null;
                if (asksEndUser || viaSdk) {
                  held.set(toolCallId, approvalId);
                  if (asksEndUser) endUser.add(toolCallId);
                  return true;
                }
              }
              decided.set(toolCallId, output);
              return false;
            },
          }
        : {}),
    });
  }
  return {
    tools,
    waitForApproval: (approvalId, maxWaitSeconds) => waitForApproval(settings, approvalId, maxWaitSeconds),
    approvalResponse: (request, maxWaitSeconds) => approvalResponse(settings, held, request, maxWaitSeconds),
    resumePending: (messages, maxWaitSeconds) => resumePending(settings, messages, maxWaitSeconds),
    asksEndUser: (request) => endUser.has(request.toolCall.toolCallId),
    endUserResponse: (request, answer) => endUserResponse(settings, held, request, answer),
  };
}
