import { Hono } from "hono";
import { adminProblem } from "../auth";
import { readBody } from "../body";
import { ConsumerConfig, ConsumerView } from "../contracts/consumer";
import { CreateCredentialRequest, CreatedCredential, CredentialId } from "../contracts/credential";
import type { Env } from "../env";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerStub, respond } from "./respond";

/** Admin routes: consumers, credentials, and the benchmark ping. */
export const adminRoutes = new Hono<{ Bindings: Env }>();

adminRoutes.put("/v1/consumers/:consumer", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const body = await readBody(c.req.raw, ConsumerConfig);
  if (!body.ok) return problemResponse(body.problem);
  return respond(await stub.configure(c.req.param("consumer"), body.value));
});

adminRoutes.post("/v1/consumers/:consumer/credentials", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const body = await readBody(c.req.raw, CreateCredentialRequest);
  if (!body.ok) return problemResponse(body.problem);
  return respond(await stub.createCredential(c.req.param("consumer"), body.value), 201);
});

adminRoutes.delete("/v1/consumers/:consumer/credentials/:credential_id", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  if (!CredentialId.safeParse(c.req.param("credential_id")).success) {
    return problemResponse(problem("NOT_FOUND", "No such credential."));
  }
  return respond(await stub.revokeCredential(c.req.param("consumer"), c.req.param("credential_id")));
});

adminRoutes.get("/v1/consumers/:consumer/ping", async (c) => {
  const denied = adminProblem(c);
  if (denied !== null) return denied;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  return c.json({ pong: await stub.ping() });
});

/** OpenAPI descriptions of the admin routes. */
export const adminOperations: readonly OperationDoc[] = [
  {
    method: "put",
    path: "/v1/consumers/{consumer}",
    summary: "Create or update a consumer: its enabled tools and the subjects allowed to approve.",
    auth: "admin",
    request: ConsumerConfig,
    response: { status: 200, schema: ConsumerView, description: "The stored consumer." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/credentials",
    summary: "Mint a credential; the secret is shown once and stored only as SHA-256.",
    auth: "admin",
    request: CreateCredentialRequest,
    response: { status: 201, schema: CreatedCredential, description: "The new credential." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  },
  {
    method: "delete",
    path: "/v1/consumers/{consumer}/credentials/{credential_id}",
    summary: "Revoke a credential at once.",
    auth: "admin",
    response: { status: 204, description: "Revoked." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/ping",
    summary: "A bare round trip to the consumer's object (benchmark baseline).",
    auth: "admin",
    response: { status: 200, description: "`{\"pong\":\"pong\"}`" },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
];
