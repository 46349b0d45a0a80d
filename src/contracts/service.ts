import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * The gate's own public answers: liveness and this API's description.
 * @module
 */

/**
 * The Worker secrets without which the gate cannot do its work: without the admin token no admin
 * request is admitted, without the tag key no credential is issued or admitted. Every other
 * secret turns one feature on.
 */
export const REQUIRED_SECRETS = ["TOOLGATE_ADMIN_TOKEN", "TOOLGATE_TOKEN_KEY"] as const;

/** A required Worker secret's name. */
export type RequiredSecret = (typeof REQUIRED_SECRETS)[number];

/** `GET /healthz`. */
export const Health = z.deferred(() =>
  z
    .strictObject({
      ok: z.literal(true),
      missing_secrets: z.optional(z.array(z.enum(REQUIRED_SECRETS))).check(
        z.meta({
          description: DOCS
            ? "Present only when the deployment lacks a required secret (unset, or too short to be used): their names, never a value. The gate serves, but refuses what needs them with 503 GATE_MISCONFIGURED."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "Health" }),
);

/** `GET /v1/openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiDescription = z.deferred(() =>
  z
    .looseObject({
      openapi: z.literal("3.1.0"),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: z.record(z.string(), z.unknown()),
    })
    .register(httpSchemas, { id: "OpenApiDocument" }),
);

/** `GET /v1/consumers/{consumer}/ping`: a bare round trip to the consumer's object. */
export const Pong = z.deferred(() => z.strictObject({ pong: z.literal("pong") }).register(httpSchemas, { id: "Pong" }));

/** One published public key of a consumer's request signatures: an RFC 8037 Ed25519 JWK, `kid` its RFC 7638 thumbprint. */
export const SigningKey = z.deferred(() =>
  z
    .strictObject({
      kty: z.literal("OKP"),
      crv: z.literal("Ed25519"),
      x: z.string(),
      kid: z.string(),
      use: z.literal("sig"),
    })
    .register(httpSchemas, { id: "SigningKey" }),
);

/** `GET /v1/consumers/{consumer}/signing-keys`: a JWK Set (RFC 7517), the current key first, then the previous one during a rotation. */
export const SigningKeySet = z.deferred(() =>
  z.strictObject({ keys: z.array(SigningKey) }).register(httpSchemas, { id: "SigningKeySet" }),
);
