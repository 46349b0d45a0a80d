import * as z from "../core/zod";
import { httpSchemas, Identifier } from "./registry";
import { MAX_STANDING_CALLS, MAX_STANDING_SECONDS } from "./standing-approval";
import { DOCS } from "./docs";

/** Path segment naming a consumer (tenant). */
export const ConsumerName = z.deferred(() => z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)));

const JwkText = z.deferred(() => z.string().check(z.maxLength(8192)));

/** A text member of a JWK of at most `max` characters, when present. */
const jwkMember = (max: number) => z.optional(z.string().check(z.maxLength(max)));

/** A public JSON Web Key as a JWKS carries it: text members only (the verifier checks the ones it uses). */
const Jwk = z.deferred(() =>
  z
    .strictObject({
      kty: z.enum(["RSA", "EC", "OKP"]),
      kid: jwkMember(256),
      alg: jwkMember(32),
      use: jwkMember(16),
      key_ops: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(8))),
      crv: jwkMember(32),
      x: z.optional(JwkText),
      y: z.optional(JwkText),
      n: z.optional(JwkText),
      e: jwkMember(16),
      x5c: z.optional(z.array(JwkText).check(z.maxLength(8))),
      x5t: jwkMember(64),
      "x5t#S256": jwkMember(64),
    })
    .check(z.meta({ description: DOCS ? "A public JSON Web Key (RFC 7517); private members are refused." : "" })),
);

/** Signature algorithms an end user's token may use (never `none`, never HMAC). */
export const PRINCIPAL_TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/** A claim name of the issuer's tokens. */
const claimName = () => z.string().check(z.minLength(1), z.maxLength(64));

/**
 * The issuer of end users' tokens (`principal_token` of token-verified agent credentials):
 * the gate checks signature, `iss`, `aud`, `exp` and `nbf` (with bounded skew) and takes the
 * subject and roles from the configured claims.
 */
export const PrincipalTokenIssuer = z.deferred(() =>
  z
    .strictObject({
      issuer: z
        .string()
        .check(z.minLength(1), z.maxLength(512), z.meta({ description: DOCS ? "Expected `iss`." : "" })),
      audience: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(512),
          z.meta({ description: DOCS ? "Expected `aud` (one of them when it is an array)." : "" }),
        ),
      jwks: z
        .optional(z.strictObject({ keys: z.array(Jwk).check(z.minLength(1), z.maxLength(32)) }))
        .check(z.meta({ description: DOCS ? "The issuer's public keys inline." : "" })),
      jwks_uri: z.optional(z.url({ protocol: /^https$/ }).check(z.maxLength(2048))).check(
        z.meta({
          description: DOCS ? "Where to fetch the issuer's JWKS (https); cached for jwks_cache_seconds." : "",
        }),
      ),
      subject_claim: z._default(claimName(), "sub"),
      roles_claim: z._default(claimName(), "roles").check(
        z.meta({
          description: DOCS ? "A claim holding an array of role names (or one space-separated string)." : "",
        }),
      ),
      algorithms: z._default(z.array(z.enum(PRINCIPAL_TOKEN_ALGORITHMS)).check(z.minLength(1), z.maxLength(11)), [
        "RS256",
        "ES256",
        "EdDSA",
        "Ed25519",
      ]),
      max_skew_seconds: z._default(z.int().check(z.gte(0), z.lte(300)), 60),
      jwks_cache_seconds: z._default(z.int().check(z.gte(60), z.lte(86_400)), 600),
    })
    .check(
      z.refine((v) => (v.jwks === undefined) !== (v.jwks_uri === undefined), {
        error: "give exactly one of jwks and jwks_uri",
        path: ["jwks"],
      }),
    )
    .register(httpSchemas, { id: "PrincipalTokenIssuer" }),
);

const positive = (max: number) => z.optional(z.int().check(z.gte(1), z.lte(max)));

/** Overrides of the documented per-consumer limits (docs/security.md); absent members keep their defaults. */
export const ConsumerLimits = z.deferred(() =>
  z
    .strictObject({
      calls_per_second: positive(1_000_000),
      call_burst: positive(1_000_000),
      pending_approvals_per_subject: positive(10_000),
      pending_approvals_per_credential: positive(100_000),
      outbox_max_events: positive(100_000),
      outbox_max_bytes: positive(64 * 1024 * 1024),
      outbox_batch_events: positive(1_000),
      sockets_per_credential: positive(1_000),
      socket_message_bytes: positive(1_048_576),
      socket_messages_per_second: positive(10_000),
      page_items: positive(500),
      retention_seconds: z.optional(z.int().check(z.gte(60), z.lte(30 * 86_400))).check(
        z.meta({
          description: DOCS
            ? "Seconds call identities, idempotency records and decided approvals are kept (default 86400, 60..2592000); a replay after that runs as a new call (docs/storage.md, Retention)."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "ConsumerLimits" }),
);

/** Origins a consumer may allow to call its routes from browsers (CORS). */
export const MAX_CORS_ORIGINS = 32;

/** A loopback host name as URL parsing answers it: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]`. */
function isLoopbackHostname(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
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
export const CorsOrigin = z.deferred(() =>
  z.string().check(
    z.maxLength(256),
    z.refine(isCorsOrigin, {
      error:
        "an exact origin as browsers send it (scheme://host[:port], lowercase, no path or trailing slash): https, or http on a loopback host",
    }),
  ),
);

/** What a tool call's audit record keeps of its arguments (`digest` unless the consumer opts in to `full`). */
export const AUDIT_ARGUMENTS = ["digest", "full"] as const;

/** A consumer's `audit_arguments` setting. */
export type AuditArguments = (typeof AUDIT_ARGUMENTS)[number];
/** Seconds an approval admits the repeated call when neither its tool nor the consumer sets a window. */
export const DEFAULT_APPROVAL_VALID_SECONDS = 600;
/** The longest approval window a consumer may set (a day). */
export const MAX_APPROVAL_VALID_SECONDS = 86_400;

const approvalWindow = () =>
  z.optional(z.int().check(z.gte(1), z.lte(MAX_APPROVAL_VALID_SECONDS))).check(
    z.meta({
      description: DOCS
        ? "Seconds an approval admits the repeated call, from the decision, for a tool that sets no `approval_valid_seconds` of its own (1..86400; absent: 600). The built-in reference tools keep their 60 (docs/approvals.md)."
        : "",
    }),
  );

/** Which tools allow standing approvals and their longest window and count (absent: none allowed). */
export const StandingApprovalsSetting = z.deferred(() =>
  z
    .strictObject({
      tools: z.array(Identifier).check(z.minLength(1), z.maxLength(256)),
      max_seconds: z.int().check(z.gte(1), z.lte(MAX_STANDING_SECONDS)),
      max_calls: z.int().check(z.gte(1), z.lte(MAX_STANDING_CALLS)),
    })
    .check(
      z.meta({
        description: DOCS
          ? "Which tools an approver may grant a standing approval for, and its longest window (seconds, at most 2592000) and largest count of calls (at most 100000). Absent: no standing approval may be granted (docs/approvals.md, Standing approvals)."
          : "",
      }),
    ),
);

/** `PUT /v1/consumers/{consumer}`: the consumer's enabled tools, who may approve, its token issuer and limits. */
export const ConsumerConfig = z.deferred(() =>
  z
    .strictObject({
      tools: z.array(Identifier).check(z.maxLength(256)),
      approver_subjects: z.array(Identifier).check(z.maxLength(256)),
      principal_tokens: z.optional(PrincipalTokenIssuer),
      limits: z.optional(ConsumerLimits),
      cors_origins: z.optional(z.array(CorsOrigin).check(z.maxLength(MAX_CORS_ORIGINS))).check(
        z.meta({
          description: DOCS
            ? "Browser origins allowed to call the consumer's credential routes across origins (CORS), each exactly as browsers send `Origin` (`https://app.example`; http only on a loopback host), at most 32. Absent or empty: no origin. Never offered on admin-only routes or the console."
            : "",
        }),
      ),
      audit_arguments: z.optional(z.enum(AUDIT_ARGUMENTS)).check(
        z.meta({
          description: DOCS
            ? "What a tool call's audit record keeps of its arguments: `digest` (default: their SHA-256 only) or `full` (the arguments themselves, in the signed log for as long as it is kept)."
            : "",
        }),
      ),
      approval_valid_seconds: approvalWindow(),
      standing_approvals: z.optional(StandingApprovalsSetting),
    })
    .register(httpSchemas, { id: "ConsumerConfig" }),
);

/**
 * `PATCH /v1/consumers/{consumer}`: a JSON Merge Patch (RFC 7396) of the configuration. The
 * merged configuration is checked by {@link ConsumerConfig}, as a PUT body is.
 */
export const ConsumerPatch = z.deferred(() =>
  z
    .record(z.string(), z.unknown())
    .check(
      z.meta({
        description: DOCS
          ? "A JSON Merge Patch (RFC 7396) of the consumer's configuration (ConsumerConfig): a member replaces the stored one, `null` removes it (its default applies again), an object merges into the stored object (`limits`). The merged configuration must satisfy ConsumerConfig (400 INVALID_REQUEST with the JSON pointer in `path`)."
          : "",
      }),
    )
    .register(httpSchemas, { id: "ConsumerPatch" }),
);

/** A consumer as stored and returned. */
export const ConsumerView = z.deferred(() =>
  z
    .strictObject({
      consumer: z.string(),
      tools: z.array(z.string()),
      approver_subjects: z.array(z.string()),
      principal_tokens: z.nullable(z.record(z.string(), z.unknown())),
      limits: z.record(z.string(), z.number()),
      cors_origins: z.optional(z.array(z.string())).check(
        z.meta({
          description: DOCS ? "The CORS allow-list, sorted; present only when the consumer allows an origin." : "",
        }),
      ),
      audit_arguments: z
        .optional(z.enum(AUDIT_ARGUMENTS))
        .check(
          z.meta({ description: DOCS ? "Present only when the consumer keeps tool calls' arguments in full." : "" }),
        ),
      approval_valid_seconds: z
        .optional(z.int())
        .check(
          z.meta({ description: DOCS ? "The consumer's approval window; present only when set (absent: 600)." : "" }),
        ),
      standing_approvals: z.optional(StandingApprovalsSetting),
      created: z.boolean(),
    })
    .register(httpSchemas, { id: "ConsumerView" }),
);

/** A parsed merge patch of the configuration. */
export type ConsumerPatch = z.infer<typeof ConsumerPatch>;
/** Parsed consumer configuration. */
export type ConsumerConfig = z.infer<typeof ConsumerConfig>;
/** A parsed token issuer. */
export type PrincipalTokenIssuer = z.infer<typeof PrincipalTokenIssuer>;
/** A parsed standing approvals setting. */
export type StandingApprovalsSetting = z.infer<typeof StandingApprovalsSetting>;
/** Parsed limit overrides. */
export type ConsumerLimits = z.infer<typeof ConsumerLimits>;
