import { Hono } from "hono";
import { ConsumerConfig, ConsumerView } from "../../contracts/consumer";
import { CreateCredentialRequest, CreatedCredential, CredentialId } from "../../contracts/credential";
import { Pong } from "../../contracts/service";
import type { OperationDoc } from "../openapi/operation";
import { problem, problemResponse } from "../problem";
import { recordInDirectory } from "./admin-reads";
import { consumerGate, jsonBody, type GateEnv } from "./middleware";
import { respond } from "./respond";

/** Admin routes: consumers, credentials, and the benchmark ping (the admin secret only). */
export const adminRoutes = new Hono<GateEnv>();

const admin = { secretOnly: true } as const;

adminRoutes.put("/v1/consumers/:consumer", consumerGate("configure", admin), jsonBody(ConsumerConfig), async (c) => {
  const configured = await c.var.stub.admin(c.var.consumer, { kind: "configure", config: c.var.body });
  // Listed only once the consumer's object accepted the configuration.
  if (configured.ok) await recordInDirectory(c.env, c.var.consumer);
  return respond(configured);
});

adminRoutes.post("/v1/consumers/:consumer/credentials", consumerGate("createCredential", admin), jsonBody(CreateCredentialRequest), async (c) =>
  respond(await c.var.stub.admin(c.var.consumer, { kind: "createCredential", request: c.var.body }), 201),
);

adminRoutes.delete("/v1/consumers/:consumer/credentials/:credential_id", consumerGate("revokeCredential", admin), async (c) => {
  const id = c.req.param("credential_id");
  if (!CredentialId.safeParse(id).success) return problemResponse(problem("NOT_FOUND", "No such credential."));
  return respond(await c.var.stub.admin(c.var.consumer, { kind: "revokeCredential", credentialId: id }));
});

adminRoutes.get("/v1/consumers/:consumer/ping", consumerGate("ping", admin), async (c) => c.json({ pong: await c.var.stub.ping() }));

/** OpenAPI descriptions of the admin routes. */
export const adminOperations: readonly OperationDoc[] = [
  {
    method: "put",
    path: "/v1/consumers/{consumer}",
    summary: "Create or update a consumer: its enabled tools and the subjects allowed to approve.",
    operation: "configure",
    request: ConsumerConfig,
    response: { status: 200, schema: ConsumerView, description: "The stored consumer." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "UNKNOWN_TOOL_NAMES"],
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/credentials",
    summary: "Mint a credential; the secret is shown once and stored only as SHA-256.",
    operation: "createCredential",
    request: CreateCredentialRequest,
    response: { status: 201, schema: CreatedCredential, description: "The new credential." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "UNKNOWN_TOOL_NAMES"],
  },
  {
    method: "delete",
    path: "/v1/consumers/{consumer}/credentials/{credential_id}",
    summary: "Revoke a credential at once.",
    operation: "revokeCredential",
    response: { status: 204, description: "Revoked." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/ping",
    summary: "A bare round trip to the consumer's object (benchmark baseline).",
    operation: "ping",
    response: { status: 200, schema: Pong, description: "The object answered." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
];
