import { Hono } from "hono";
import { toolActorId, toolProviderId } from "../../core/capability";
import { adminProblem, credentialOf, type GateContext } from "../auth";
import {
  CapabilityAnswer,
  CapabilityAuthorityRequest,
  CapabilityDetachPost,
  CapabilityInstanceUpdate,
  CapabilityObservationPost,
  CapabilityProviderRegistration,
  CapabilityRequestBody,
} from "../contracts/capability";
import type { Env } from "../env";
import type { CapabilityCall } from "../object/capability-plane";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse, type ProblemCode } from "../problem";
import { parseU64, readWireBody } from "./capability-body";
import { consumerStub, respond } from "./respond";

/** Longest long-poll wait, in milliseconds. */
export const MAX_POLL_WAIT_MS = 25_000;

const BASE = "/v1/consumers/:consumer/capability";

/** Capability plane routes: admin setup, authority, agent requests, providers, snapshots. */
export const capabilityRoutes = new Hono<{ Bindings: Env }>();

// The admin secret (answered as `null`) or a consumer credential's token.
function tokenOf(c: GateContext): string | null | Response {
  if (adminProblem(c) === null) return null;
  const credential = credentialOf(c);
  return credential instanceof Response ? credential : credential.token;
}

async function dispatch(c: GateContext, call: CapabilityCall | Response, status: 200 | 201 = 200): Promise<Response> {
  if (call instanceof Response) return call;
  const token = tokenOf(c);
  if (token instanceof Response) return token;
  const stub = consumerStub(c.env, c.req.param("consumer") ?? "");
  if (stub instanceof Response) return stub;
  return respond(await stub.capabilityCall(c.req.param("consumer") ?? "", token, call), status);
}

function notFound(what: string): Response {
  return problemResponse(problem("NOT_FOUND", `No such ${what}.`));
}

function providerParam(c: GateContext): string | Response {
  const id = c.req.param("provider_id") ?? "";
  return toolProviderId.safeParse(id).success ? id : notFound("provider");
}

capabilityRoutes.post(`${BASE}/providers`, async (c) => {
  const body = await readWireBody(c.req.raw, CapabilityProviderRegistration);
  return dispatch(c, body.ok ? { kind: "register-provider", body: body.value } : problemResponse(body.problem), 201);
});

capabilityRoutes.put(`${BASE}/instances/:instance_id`, async (c) => {
  const instanceId = parseU64(c.req.param("instance_id"));
  if (instanceId === null) return notFound("instance");
  const body = await readWireBody(c.req.raw, CapabilityInstanceUpdate);
  return dispatch(c, body.ok ? { kind: "set-instance", instanceId, body: body.value } : problemResponse(body.problem));
});

capabilityRoutes.delete(`${BASE}/instances/:instance_id`, async (c) => {
  const instanceId = parseU64(c.req.param("instance_id"));
  return dispatch(c, instanceId === null ? notFound("instance") : { kind: "remove-instance", instanceId });
});

capabilityRoutes.post(`${BASE}/authority`, async (c) => {
  const body = await readWireBody(c.req.raw, CapabilityAuthorityRequest);
  return dispatch(c, body.ok ? { kind: "authority", body: body.value } : problemResponse(body.problem));
});

capabilityRoutes.get(`${BASE}/approvals`, (c) => dispatch(c, { kind: "approvals" }));

capabilityRoutes.post(`${BASE}/requests`, async (c) => {
  const body = await readWireBody(c.req.raw, CapabilityRequestBody);
  return dispatch(c, body.ok ? { kind: "request", body: body.value } : problemResponse(body.problem));
});

capabilityRoutes.get(`${BASE}/requests/:actor_id/:local_id`, (c) => {
  const actorId = c.req.param("actor_id");
  const localId = parseU64(c.req.param("local_id"));
  if (localId === null || !toolActorId.safeParse(actorId).success) return notFound("capability request");
  return dispatch(c, { kind: "request-status", actorId, localId });
});

capabilityRoutes.post(`${BASE}/completions/drain`, (c) => dispatch(c, { kind: "drain-completions" }));

capabilityRoutes.get(`${BASE}/snapshot`, (c) => dispatch(c, { kind: "snapshot" }));

capabilityRoutes.get(`${BASE}/providers/:provider_id/connect`, async (c) => {
  const providerId = providerParam(c);
  if (providerId instanceof Response) return providerId;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return problemResponse(problem("UPGRADE_REQUIRED", "Connect with a WebSocket upgrade."));
  }
  return stub.fetch(c.req.raw);
});

capabilityRoutes.post(`${BASE}/providers/:provider_id/attach`, (c) => {
  const providerId = providerParam(c);
  return dispatch(c, providerId instanceof Response ? providerId : { kind: "attach", providerId });
});

capabilityRoutes.get(`${BASE}/providers/:provider_id/effects`, (c) => {
  const providerId = providerParam(c);
  if (providerId instanceof Response) return providerId;
  const bindingId = parseU64(c.req.query("binding_id"));
  const afterText = c.req.query("after");
  const after = afterText === undefined ? null : parseU64(afterText);
  const wait = Number(c.req.query("wait") ?? "0");
  if (bindingId === null || (afterText !== undefined && after === null) || !Number.isInteger(wait) || wait < 0 || wait > MAX_POLL_WAIT_MS) {
    return problemResponse(problem("INVALID_REQUEST", `binding_id (u64), after (u64, optional) and wait (0..${MAX_POLL_WAIT_MS} ms) are required as documented.`));
  }
  return dispatch(c, { kind: "poll", providerId, bindingId, after, waitMs: wait });
});

capabilityRoutes.post(`${BASE}/providers/:provider_id/observations`, async (c) => {
  const providerId = providerParam(c);
  if (providerId instanceof Response) return providerId;
  const body = await readWireBody(c.req.raw, CapabilityObservationPost);
  return dispatch(c, body.ok ? { kind: "observe", providerId, body: body.value } : problemResponse(body.problem));
});

capabilityRoutes.post(`${BASE}/providers/:provider_id/detach`, async (c) => {
  const providerId = providerParam(c);
  if (providerId instanceof Response) return providerId;
  const body = await readWireBody(c.req.raw, CapabilityDetachPost);
  return dispatch(c, body.ok ? { kind: "detach", providerId, bindingId: body.value.binding_id } : problemResponse(body.problem));
});

const AUTH: readonly ProblemCode[] = ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"];
const BODY: readonly ProblemCode[] = ["INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const ENGINE: readonly ProblemCode[] = ["CAPABILITY_INVALID", "CAPABILITY_REJECTED", "CAPABILITY_CAPACITY"];
const P = "/v1/consumers/{consumer}/capability";

function op(method: OperationDoc["method"], path: string, auth: OperationDoc["auth"], summary: string, extra: Partial<OperationDoc> = {}): OperationDoc {
  return {
    method,
    path: `${P}${path}`,
    summary,
    auth,
    response: { status: 200, schema: CapabilityAnswer, description: "The engine's answer in wire JSON (see docs/capability-http.md)." },
    problems: [...AUTH, ...(extra.request === undefined ? [] : BODY), ...ENGINE],
    ...extra,
  };
}

/** OpenAPI descriptions of the capability routes. */
export const capabilityOperations: readonly OperationDoc[] = [
  op("post", "/providers", "admin", "Register a capability provider of this consumer (browser.* and consumer-state.* only).", {
    request: CapabilityProviderRegistration,
    response: { status: 201, schema: CapabilityAnswer, description: "`{provider_id}`." },
  }),
  op("put", "/instances/{instance_id}", "admin", "Set an instance's generation and state (set-generation, then set-instance-state).", { request: CapabilityInstanceUpdate }),
  op("delete", "/instances/{instance_id}", "admin", "Remove an instance: its grants go, its open requests close as instance-closed."),
  op("post", "/authority", "approver-or-admin", "Apply one authority command (set-grant, revoke-grant, resolve-approval, close-client).", { request: CapabilityAuthorityRequest }),
  op("get", "/approvals", "approver-or-admin", "Capability requests awaiting approval and the last authority sequence."),
  op("post", "/requests", "agent", "Submit a capability request; answers the policy decision (a denial is a 200).", { request: CapabilityRequestBody }),
  op("get", "/requests/{actor_id}/{local_id}", "agent", "The public record of one capability request."),
  op("post", "/completions/drain", "agent", "Drain the completion queue (CapabilityCompletionBatch)."),
  op("get", "/snapshot", "auditor-or-admin", "The engine snapshot and the provider-runtime snapshot."),
  op("get", "/providers/{provider_id}/connect", "provider", "Attach the provider over a WebSocket (hibernation); effects are pushed, observations received.", {
    response: { status: 101, description: "Switching protocols (subprotocol toolgate-provider-v1)." },
    problems: [...AUTH, "UPGRADE_REQUIRED", ...ENGINE],
  }),
  op("post", "/providers/{provider_id}/attach", "provider", "Attach the provider for long-polling; answers the binding id and the lease."),
  op("get", "/providers/{provider_id}/effects", "provider", "Long-poll the provider's effects (acknowledge up to `after`, wait up to `wait` ms).", {
    query: {
      binding_id: { description: "The binding id answered by attach.", schema: { type: "string", pattern: "^[0-9]+$" } },
      after: { description: "Acknowledge effects with sequence ≤ after.", schema: { type: "string", pattern: "^[0-9]+$" } },
      wait: { description: `Milliseconds to wait for an effect (0..${MAX_POLL_WAIT_MS}).`, schema: { type: "integer", minimum: 0, maximum: MAX_POLL_WAIT_MS } },
    },
    problems: [...AUTH, "INVALID_REQUEST", ...ENGINE],
  }),
  op("post", "/providers/{provider_id}/observations", "provider", "Report one observation under the binding.", { request: CapabilityObservationPost }),
  op("post", "/providers/{provider_id}/detach", "provider", "Detach the binding; requests in flight end as provider-detached.", { request: CapabilityDetachPost }),
];
