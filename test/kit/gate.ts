/**
 * Test helpers: drive the gate through the Worker's fetch handler, as workerd calls it for a
 * request (the real bindings, a fresh execution context whose `waitUntil` work the pool awaits).
 *
 * Not through the `exports.default` loopback: in this pool version each request through it costs
 * more than the one before (about 0.13 ms more per earlier request, in every later file once files
 * share a workerd), so a file of a few hundred requests ran several times slower than its work.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, createExecutionContext, runInDurableObject } from "cloudflare:test";
import worker from "../../src/worker/index";

/** The admin secret bound in vitest.config.ts. */
export const ADMIN_TOKEN = "test-admin-token-0123456789";

/** Sends one request, given as `fetch` takes it, to the Worker's fetch handler. */
export async function gateFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return await worker.fetch(new Request(input, init), env, createExecutionContext());
}

/** Sends one request for a path of the gate (origin `http://gate`). */
export function gate(path: string, init: RequestInit = {}): Promise<Response> {
  return gateFetch(`http://gate${path}`, init);
}

/** JSON request with a bearer token (through `via`: {@link gate} unless told). */
export function send(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  via: typeof gate = gate,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return via(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** JSON request with a bearer token; answers the status and the parsed body (`null` for an empty one). */
export async function sendJson(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await send(method, path, token, body);
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** Creates (or updates) a consumer. */
export async function createConsumer(consumer: string, tools: string[], approvers: string[]): Promise<void> {
  const res = await send("PUT", `/v1/consumers/${consumer}`, ADMIN_TOKEN, { tools, approver_subjects: approvers });
  if (res.status !== 200) throw new Error(`consumer setup failed: ${res.status} ${await res.text()}`);
}

/**
 * Mints a credential and answers its secret. `extra` adds binding members (`principal`,
 * `roles`, `tools`, `expires_at`); an agent credential without a subject is a host credential.
 */
export async function credential(
  consumer: string,
  kind: string,
  subject?: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const res = await send("POST", `/v1/consumers/${consumer}/credentials`, ADMIN_TOKEN, {
    kind,
    ...(subject === undefined ? {} : { subject_id: subject }),
    ...extra,
  });
  if (res.status !== 201) throw new Error(`credential setup failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { credential_id: string; secret: string };
  return { id: body.credential_id, secret: body.secret };
}

/** Pins the consumer object's clock (Unix seconds). */
export async function pinClock(consumer: string, seconds: number): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
  await runInDurableObject(stub, (instance) => {
    instance.clock.pinnedSeconds = seconds;
  });
}

/**
 * Pins the clock of the consumer object's call rate (milliseconds), so a test of a bucket does
 * not depend on how fast the machine sends its requests.
 */
export async function pinRateClock(consumer: string, ms: number): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
  await runInDurableObject(stub, (instance) => {
    instance.clock.pinnedRateMs = ms;
  });
}

/** Host context for a call. */
export function context(
  callId: string,
  opts: {
    provider?: "openai" | "anthropic" | "google";
    key?: string | null;
    operation?: string;
    response?: string;
  } = {},
) {
  const provider = opts.provider ?? "openai";
  const profile = {
    openai: { api_family: "responses", adapter_revision: "openai-responses-v1" },
    anthropic: { api_family: "messages", adapter_revision: "anthropic-messages-v1" },
    google: { api_family: "interactions", adapter_revision: "gemini-interactions-v1" },
  }[provider];
  return {
    call_id: callId,
    operation_id: opts.operation ?? `op-${callId}`,
    idempotency_key: opts.key ?? null,
    provider,
    api_family: profile.api_family,
    response_id: opts.response ?? "response-1",
    adapter_revision: profile.adapter_revision,
  };
}

/** A parsed tool-call answer. */
export interface ToolCallAnswer {
  model_result: {
    status: string;
    data: Record<string, unknown> | null;
    error: { code: string; recovery: string } | null;
    execution: { outcome: string; delivery: string };
  };
  provider_output: Record<string, unknown>;
  approval_id?: string;
}

/** Deletes every row of each consumer's object and restarts it (storage is shared between tests in this pool version). */
export async function wipe(...consumers: string[]): Promise<void> {
  for (const consumer of consumers) {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
    await runInDurableObject(stub, async (_instance, state) => {
      await state.storage.deleteAll();
    });
  }
  await abortAllDurableObjects();
}
