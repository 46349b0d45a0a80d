import { Hono } from "hono";
import { adminProblem, credentialOf } from "../auth";
import { readBody, readCappedBytes } from "../body";
import { FacadeTargetsRequest, FacadeTargetsView, RuntimeEnvelopeDoc } from "../contracts/runtime";
import type { Env } from "../env";
import { MAX_ENVELOPE_BYTES } from "../object/runtime-transport";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerStub, respond } from "./respond";

/** Runtime routes: the execution envelope v1 transport (HTTP and WebSocket) and its admin map. */
export const runtimeRoutes = new Hono<{ Bindings: Env }>();

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

runtimeRoutes.post("/v1/consumers/:consumer/runtime/envelopes", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  if (!isJson(c.req.header("content-type"))) return problemResponse(problem("UNSUPPORTED_MEDIA_TYPE", "Send the envelope as application/json."));
  const bytes = await readCappedBytes(c.req.raw, MAX_ENVELOPE_BYTES);
  if (!bytes.ok) return problemResponse(bytes.problem);
  const reply = await stub.runtimeEnvelope(c.req.param("consumer"), credential.token, bytes.value);
  if (!reply.ok) return problemResponse(reply.problem);
  if (reply.value.envelope === null) return new Response(null, { status: 202 });
  return new Response(reply.value.envelope, { status: 200, headers: { "content-type": "application/json" } });
});

runtimeRoutes.get("/v1/consumers/:consumer/runtime/connect", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return problemResponse(problem("UPGRADE_REQUIRED", "Connect with a WebSocket upgrade."));
  }
  return stub.fetch(c.req.raw);
});

runtimeRoutes.get("/v1/consumers/:consumer/runtime/facade-targets", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  return respond(await stub.facadeTargets(c.req.param("consumer"), null));
});

runtimeRoutes.put("/v1/consumers/:consumer/runtime/facade-targets", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const body = await readBody(c.req.raw, FacadeTargetsRequest);
  if (!body.ok) return problemResponse(body.problem);
  return respond(await stub.facadeTargets(c.req.param("consumer"), body.value.targets));
});

const refusals = ["invalid_json", "unknown_field", "unsupported_version", "missing_identifier", "invalid_binding", "UNSUPPORTED_FAMILY"] as const;

/** OpenAPI descriptions of the runtime routes. */
export const runtimeOperations: readonly OperationDoc[] = [
  {
    method: "post",
    path: "/v1/consumers/{consumer}/runtime/envelopes",
    summary:
      "One execution envelope v1. 200 with the answering envelope (app_facade_response, checkpoint_purge_ack); 202 without a body for event and event_ack.",
    auth: "runtime",
    request: RuntimeEnvelopeDoc,
    response: { status: 200, schema: RuntimeEnvelopeDoc, description: "The gate's answering envelope, canonical wire JSON." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "IDEMPOTENCY_IN_PROGRESS", ...refusals],
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/runtime/connect",
    summary: "WebSocket (hibernation): each text message one envelope; answers, unacknowledged events and refusals come back as messages.",
    auth: "runtime",
    response: { status: 101, description: "Switching protocols." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "UPGRADE_REQUIRED"],
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/runtime/facade-targets",
    summary: "The App Facade target → tool map and its revision.",
    auth: "admin",
    response: { status: 200, schema: FacadeTargetsView, description: "The stored map." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "put",
    path: "/v1/consumers/{consumer}/runtime/facade-targets",
    summary: "Replace the App Facade target → tool map; its revision goes up by one (prepared actions of older revisions go stale).",
    auth: "admin",
    request: FacadeTargetsRequest,
    response: { status: 200, schema: FacadeTargetsView, description: "The stored map." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  },
];
