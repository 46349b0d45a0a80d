/**
 * R3's loopback client of the gate under `wrangler dev`: every request is bounded in time, and
 * a request that gets no HTTP answer (connection refused or reset by a SIGKILL, timeout) is
 * reported as such instead of throwing, because that is one of the outcomes R3 records.
 */

/** What the client saw: an HTTP answer, or none at all. */
export type Sent =
  | { readonly kind: "answer"; readonly status: number; readonly contentType: string; readonly body: any }
  | { readonly kind: "no_answer"; readonly error: string };

/** The consumer all of R3 runs under (the demo orders belong to tenant-a / user-1). */
export const CONSUMER = "tenant-a";
export const SUBJECT = "user-1";
export const APPROVER_SUBJECT = "human-reviewer-1";

/** Sends one request to `{base}/v1/consumers/{CONSUMER}{path}`. */
export async function send(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<Sent> {
  try {
    const res = await fetch(`${base}/v1/consumers/${CONSUMER}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { kind: "answer", status: res.status, contentType: res.headers.get("content-type") ?? "", body: parsed };
  } catch (error) {
    // Only the error class: a message could in theory echo a request detail.
    return { kind: "no_answer", error: error instanceof Error ? error.name : "unknown" };
  }
}

/** A tool call body (OpenAI Responses profile); `callId` also names the operation. */
export function toolCall(tool: string, args: Record<string, unknown>, callId: string, key: string | null) {
  return {
    principal: { subject_id: SUBJECT, roles: [] as string[] },
    proposal: { name: tool, arguments: args },
    context: {
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: key,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-r3",
      adapter_revision: "openai-responses-v1",
    },
  };
}

/**
 * Whether the answer is `wrangler dev`'s own 503 "Your worker restarted mid-request" (its proxy
 * answers it when the runtime reloads under a request, e.g. after a source file changed): the
 * request may or may not have reached the gate, so for the client it is no answer at all.
 */
export function devProxyRestart(sent: Sent): boolean {
  return (
    sent.kind === "answer" &&
    sent.status === 503 &&
    !sent.contentType.startsWith("application/problem+json") &&
    !sent.contentType.startsWith("application/json")
  );
}

/** A 5xx from the gate itself (not the dev proxy's restart answer): a product bug. */
export function gate5xx(sent: Sent): boolean {
  return sent.kind === "answer" && sent.status >= 500 && !devProxyRestart(sent);
}

/** The model-level error code of an answer, or null. */
export function modelCode(sent: Sent): string | null {
  if (sent.kind !== "answer") return null;
  const code = sent.body?.model_result?.error?.code;
  return typeof code === "string" ? code : null;
}

/** Whether an answer is a 200 whose model result succeeded. */
export function succeeded(sent: Sent): boolean {
  return sent.kind === "answer" && sent.status === 200 && sent.body?.model_result?.status === "succeeded";
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
