import type { MiddlewareHandler } from "hono";
import { ConsumerConfig, ConsumerPatch, ConsumerView } from "../../../contracts/consumer";
import { CreateCredentialRequest, CreatedCredential, CredentialId } from "../../../contracts/credential";
import { Pong } from "../../../contracts/service";
import { forgetCorsOrigins } from "../../http/cors-origins";
import { problem, problemResponse } from "../../http/problem";
import { recordInDirectory } from "./read-routes";
import { misconfigured, missingSecrets } from "../../required-secrets";
import { jsonBody, type GateEnv } from "../../http/middleware";
import { adminCall, respond, sendBody, valueForObject } from "../../http/respond";
import { adminBodyProblems, handlers, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

/** Refuses minting in the Worker, before the object, when the tag key is missing: its credentials could never be admitted. */
const tokenKeySet: MiddlewareHandler<GateEnv> = async function tokenKeySet(c, next) {
  if (missingSecrets(c.env).includes("TOOLGATE_TOKEN_KEY"))
    return problemResponse(misconfigured("TOOLGATE_TOKEN_KEY", "no credential can be issued"));
  await next();
};

/** Admin routes: consumers, credentials, and the benchmark ping (the admin secret only). */
export const adminRoutes: RouteModule = {
  routes: [
    {
      method: "put",
      path: "/v1/consumers/{consumer}",
      summary: DOCS ? "Create or update a consumer: its enabled tools and the subjects allowed to approve." : "",
      operation: "configure",
      auth: "admin-secret",
      request: ConsumerConfig,
      response: { status: 200, schema: ConsumerView, description: DOCS ? "The stored consumer." : "" },
      problems: adminBodyProblems("UNKNOWN_TOOL_NAMES"),
      handlers: handlers(jsonBody(ConsumerConfig), async (c) => {
        const config = valueForObject(c.var.body);
        if (config instanceof Response) return config;
        const configured = await c.var.object.admin(c.var.consumer, { kind: "configure", config });
        if (configured.ok) {
          // Listed only once the consumer's object accepted the configuration.
          await recordInDirectory(c.env, c.var.consumer);
          // Its cors_origins may have changed: this isolate reads them again.
          forgetCorsOrigins(c.var.consumer);
        }
        return respond(configured);
      }),
    },
    {
      method: "patch",
      path: "/v1/consumers/{consumer}",
      summary: DOCS
        ? "Change part of a consumer's configuration with a JSON Merge Patch (RFC 7396; `application/merge-patch+json`): the merged configuration is checked as a PUT body is and stored at once, or not at all."
        : "",
      operation: "patchConsumer",
      auth: "admin-secret",
      request: ConsumerPatch,
      requestMedia: "application/merge-patch+json",
      response: { status: 200, schema: ConsumerView, description: DOCS ? "The stored consumer." : "" },
      problems: adminBodyProblems("UNKNOWN_TOOL_NAMES"),
      handlers: handlers(jsonBody(ConsumerPatch, { mediaType: "application/merge-patch+json" }), async (c) => {
        const patch = valueForObject(c.var.body);
        if (patch instanceof Response) return patch;
        const configured = await c.var.object.admin(c.var.consumer, { kind: "patchConsumer", patch });
        // Its cors_origins may have changed: this isolate reads them again.
        if (configured.ok) forgetCorsOrigins(c.var.consumer);
        return respond(configured);
      }),
    },
    {
      method: "post",
      path: "/v1/consumers/{consumer}/credentials",
      summary: DOCS ? "Mint a credential; the secret is shown once and stored only as SHA-256." : "",
      operation: "createCredential",
      auth: "admin-secret",
      request: CreateCredentialRequest,
      response: { status: 201, schema: CreatedCredential, description: DOCS ? "The new credential." : "" },
      problems: adminBodyProblems("UNKNOWN_TOOL_NAMES", "GATE_MISCONFIGURED"),
      handlers: handlers(tokenKeySet, jsonBody(CreateCredentialRequest), (c) =>
        sendBody(
          c.var.body,
          (request) => c.var.object.admin(c.var.consumer, { kind: "createCredential", request }),
          201,
        ),
      ),
    },
    {
      method: "delete",
      path: "/v1/consumers/{consumer}/credentials/{credential_id}",
      summary: DOCS ? "Revoke a credential at once." : "",
      operation: "revokeCredential",
      auth: "admin-secret",
      response: { status: 204, description: DOCS ? "Revoked." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(async (c) => {
        const id = c.req.param("credential_id");
        if (id === undefined || !CredentialId.safeParse(id).success)
          return problemResponse(problem("NOT_FOUND", "No such credential."));
        return adminCall(c.var, { kind: "revokeCredential", credentialId: id });
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/ping",
      summary: DOCS ? "A bare round trip to the consumer's object (benchmark baseline)." : "",
      operation: "ping",
      auth: "admin-secret",
      response: { status: 200, schema: Pong, description: DOCS ? "The object answered." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(async (c) => c.json({ pong: await c.var.object.ping() })),
    },
  ],
};
