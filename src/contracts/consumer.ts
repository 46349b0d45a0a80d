import * as z from "zod";
import { httpSchemas, Identifier } from "./registry";

/** Path segment naming a consumer (tenant). */
export const ConsumerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

const JwkText = z.string().max(8192);

/** A public JSON Web Key as a JWKS carries it: text members only (the verifier checks the ones it uses). */
const Jwk = z
  .strictObject({
    kty: z.enum(["RSA", "EC", "OKP"]),
    kid: z.string().max(256).optional(),
    alg: z.string().max(32).optional(),
    use: z.string().max(16).optional(),
    key_ops: z.array(z.string().max(32)).max(8).optional(),
    crv: z.string().max(32).optional(),
    x: JwkText.optional(),
    y: JwkText.optional(),
    n: JwkText.optional(),
    e: z.string().max(16).optional(),
    x5c: z.array(JwkText).max(8).optional(),
    x5t: z.string().max(64).optional(),
    "x5t#S256": z.string().max(64).optional(),
  })
  .meta({ description: "A public JSON Web Key (RFC 7517); private members are refused." });

/** Signature algorithms an end user's token may use (never `none`, never HMAC). */
export const PRINCIPAL_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"] as const;

/**
 * The issuer of end users' tokens (`principal_token` of token-verified agent credentials):
 * the gate checks signature, `iss`, `aud`, `exp` and `nbf` (with bounded skew) and takes the
 * subject and roles from the configured claims.
 */
export const PrincipalTokenIssuer = z
  .strictObject({
    issuer: z.string().min(1).max(512).meta({ description: "Expected `iss`." }),
    audience: z.string().min(1).max(512).meta({ description: "Expected `aud` (one of them when it is an array)." }),
    jwks: z
      .strictObject({ keys: z.array(Jwk).min(1).max(32) })
      .optional()
      .meta({ description: "The issuer's public keys inline." }),
    jwks_uri: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .optional()
      .meta({ description: "Where to fetch the issuer's JWKS (https); cached for jwks_cache_seconds." }),
    subject_claim: z.string().min(1).max(64).default("sub"),
    roles_claim: z.string().min(1).max(64).default("roles").meta({ description: "A claim holding an array of role names (or one space-separated string)." }),
    algorithms: z.array(z.enum(PRINCIPAL_TOKEN_ALGORITHMS)).min(1).max(11).default(["RS256", "ES256", "EdDSA", "Ed25519"]),
    max_skew_seconds: z.number().int().min(0).max(300).default(60),
    jwks_cache_seconds: z.number().int().min(60).max(86_400).default(600),
  })
  .refine((v) => (v.jwks === undefined) !== (v.jwks_uri === undefined), { message: "give exactly one of jwks and jwks_uri", path: ["jwks"] })
  .register(httpSchemas, { id: "PrincipalTokenIssuer" });

const positive = (max: number) => z.number().int().min(1).max(max).optional();

/** Overrides of the documented per-consumer limits (docs/security.md); absent members keep their defaults. */
export const ConsumerLimits = z
  .strictObject({
    calls_per_second: positive(1_000_000),
    call_burst: positive(1_000_000),
    pending_approvals_per_subject: positive(10_000),
    outbox_max_events: positive(100_000),
    outbox_max_bytes: positive(64 * 1024 * 1024),
    outbox_batch_events: positive(1_000),
    sockets_per_credential: positive(1_000),
    socket_message_bytes: positive(1_048_576),
    socket_messages_per_second: positive(10_000),
    page_items: positive(500),
    retention_seconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .optional()
      .meta({
        description:
          "Seconds call identities, idempotency records and decided approvals are kept (default 86400, 60..2592000); a replay after that runs as a new call (docs/storage.md, Retention).",
      }),
  })
  .register(httpSchemas, { id: "ConsumerLimits" });

/** Origins a consumer may allow to call its routes from browsers (CORS). */
export const MAX_CORS_ORIGINS = 32;

/** A loopback host name as URL parsing answers it: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]`. */
function isLoopbackHostname(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Whether a text is an origin exactly as a browser's `Origin` header serializes it: https, or http on a loopback host. */
function isCorsOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.origin !== value) return false;
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHostname(url.hostname));
}

/** One origin of a consumer's CORS allow-list, compared byte for byte with a request's `Origin`. */
export const CorsOrigin = z
  .string()
  .max(256)
  .refine(isCorsOrigin, { message: "an exact origin as browsers send it (scheme://host[:port], lowercase, no path or trailing slash): https, or http on a loopback host" });

/** `PUT /v1/consumers/{consumer}`: the consumer's enabled tools, who may approve, its token issuer and limits. */
export const ConsumerConfig = z
  .strictObject({
    tools: z.array(Identifier).max(256),
    approver_subjects: z.array(Identifier).max(256),
    principal_tokens: PrincipalTokenIssuer.optional(),
    limits: ConsumerLimits.optional(),
    cors_origins: z
      .array(CorsOrigin)
      .max(MAX_CORS_ORIGINS)
      .optional()
      .meta({
        description:
          "Browser origins allowed to call the consumer's credential routes across origins (CORS), each exactly as browsers send `Origin` (`https://app.example`; http only on a loopback host), at most 32. Absent or empty: no origin. Never offered on admin-only routes or the console.",
      }),
  })
  .register(httpSchemas, { id: "ConsumerConfig" });

/** A consumer as stored and returned. */
export const ConsumerView = z
  .strictObject({
    consumer: z.string(),
    tools: z.array(z.string()),
    approver_subjects: z.array(z.string()),
    principal_tokens: z.record(z.string(), z.unknown()).nullable(),
    limits: z.record(z.string(), z.number()),
    cors_origins: z.array(z.string()).optional().meta({ description: "The CORS allow-list, sorted; present only when the consumer allows an origin." }),
    created: z.boolean(),
  })
  .register(httpSchemas, { id: "ConsumerView" });

/** Parsed consumer configuration. */
export type ConsumerConfig = z.infer<typeof ConsumerConfig>;
/** A parsed token issuer. */
export type PrincipalTokenIssuer = z.infer<typeof PrincipalTokenIssuer>;
/** Parsed limit overrides. */
export type ConsumerLimits = z.infer<typeof ConsumerLimits>;
