import { FacadeTargetsRequest, FacadeTargetsView, RuntimeEnvelopeDoc } from "../../../contracts/runtime";
import { isJsonMediaType, readCappedBytes } from "../../http/body";
import { bearerToken } from "../credentials/format";
import { forwardSocket } from "../sockets/routes";
import { MAX_ENVELOPE_BYTES } from "./service";
import { problem, problemResponse } from "../../http/problem";
import { credentialToken, jsonBody } from "../../http/middleware";
import { adminCall } from "../../http/respond";
import { adminBodyProblems, handlers, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

const refusals = [
  "INVALID_JSON",
  "UNKNOWN_FIELD",
  "UNSUPPORTED_VERSION",
  "MISSING_IDENTIFIER",
  "INVALID_BINDING",
  "UNSUPPORTED_FAMILY",
] as const;

/** Runtime routes: the execution envelope v1 transport (HTTP and WebSocket) and its admin map. */
export const runtimeRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: "/v1/consumers/{consumer}/runtime/envelopes",
      summary: DOCS
        ? "One execution envelope v1. 200 with the answering envelope (app_facade_response, checkpoint_purge_ack); 202 without a body for event and event_ack."
        : "",
      operation: "runtimeEnvelope",
      auth: "credential",
      request: RuntimeEnvelopeDoc,
      response: {
        status: 200,
        schema: RuntimeEnvelopeDoc,
        description: DOCS ? "The gate's answering envelope, canonical wire JSON." : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "NOT_FOUND",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        "IDEMPOTENCY_IN_PROGRESS",
        "QUOTA_EXCEEDED",
        ...refusals,
      ],
      // The envelope codec reads the body (its own strict decoder and refusal codes), not a contract.
      handlers: handlers(async (c) => {
        if (!isJsonMediaType(c.req.header("content-type")))
          return problemResponse(problem("UNSUPPORTED_MEDIA_TYPE", "Send the envelope as application/json."));
        const bytes = await readCappedBytes(c.req.raw, MAX_ENVELOPE_BYTES);
        if (!bytes.ok) return problemResponse(bytes.error);
        const reply = await c.var.object.runtimeEnvelope(c.var.consumer, credentialToken(c.var.token), bytes.value);
        if (!reply.ok) return problemResponse(reply.error);
        if (reply.value.envelope === null) return new Response(null, { status: 202 });
        return new Response(reply.value.envelope, { status: 200, headers: { "content-type": "application/json" } });
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/runtime/connect",
      summary: DOCS
        ? "WebSocket (hibernation): each text message one envelope; answers, unacknowledged events and refusals come back as messages."
        : "",
      operation: "runtimeConnect",
      auth: "credential",
      response: { status: 101, description: DOCS ? "Switching protocols." : "" },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "UPGRADE_REQUIRED", "QUOTA_EXCEEDED"],
      handlers: handlers((c) =>
        forwardSocket(c.req.raw, c.env, c.var.stub, {
          route: "runtime",
          consumer: c.var.consumer,
          token: bearerToken(c.req.header("authorization") ?? null) ?? "",
        }),
      ),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/runtime/facade-targets",
      summary: DOCS ? "The App Facade target → tool map and its revision." : "",
      operation: "facadeTargets",
      auth: "admin-secret",
      response: { status: 200, schema: FacadeTargetsView, description: DOCS ? "The stored map." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers((c) => adminCall(c.var, { kind: "facadeTargets", targets: null })),
    },
    {
      method: "put",
      path: "/v1/consumers/{consumer}/runtime/facade-targets",
      summary: DOCS
        ? "Replace the App Facade target → tool map; its revision goes up by one (prepared actions of older revisions go stale)."
        : "",
      operation: "facadeTargets",
      auth: "admin-secret",
      request: FacadeTargetsRequest,
      response: { status: 200, schema: FacadeTargetsView, description: DOCS ? "The stored map." : "" },
      problems: adminBodyProblems("UNKNOWN_TOOL_NAMES"),
      handlers: handlers(jsonBody(FacadeTargetsRequest), (c) =>
        adminCall(c.var, { kind: "facadeTargets", targets: c.var.body.targets }),
      ),
    },
  ],
};
