import type { ConsumerObject } from "./kernel/consumer-object";
import type { DirectoryObject } from "./features/directory/directory-object";

/** Bindings of the toolgate Worker. */
export interface Env {
  /** One Durable Object per consumer, addressed by `idFromName(consumer)`. */
  CONSUMER: DurableObjectNamespace<ConsumerObject>;
  /**
   * The directory of consumer names (one object, `idFromName("directory")`), written when the
   * admin configures a consumer; `GET /v1/consumers` lists it. Unbound (an embedding Worker
   * that declares only CONSUMER): consumers are not recorded and that route answers 404.
   */
  DIRECTORY?: DurableObjectNamespace<DirectoryObject>;
  /** The admin credential (a Worker secret; `.dev.vars` locally). */
  TOOLGATE_ADMIN_TOKEN?: string;
  /**
   * The key of credential tags (a Worker secret, at least 32 characters): every credential
   * carries an HMAC-SHA-256 tag over its consumer and body under this key, checked by the
   * Worker before any Durable Object is touched. Unset admits no credential.
   */
  TOOLGATE_TOKEN_KEY?: string;
  /** The previous tag key, accepted (never minted with) while a rotation is under way. */
  TOOLGATE_TOKEN_KEY_PREVIOUS?: string;
  /**
   * The secret behind the identity every HTTP tool and MCP target request carries (a Worker
   * secret, at least 32 characters): each consumer's Ed25519 key pair (RFC 9421 `ed25519`) is
   * derived from it with HKDF-SHA256, and only the public keys are published, at
   * `GET /v1/consumers/{consumer}/signing-keys` (docs/http-tools.md). Unset or shorter: HTTP
   * tools send nothing and answer `TOOL_ERROR`, and that route answers `404 SIGNING_NOT_CONFIGURED`.
   */
  TOOLGATE_SIGNING_KEY?: string;
  /** The signing secret before a rotation (at least 32 characters): its public keys stay published, nothing is signed with it. */
  TOOLGATE_SIGNING_KEY_PREVIOUS?: string;
  /**
   * The key that seals consumer secrets (AES-256-GCM, a key derived per consumer; at least 32
   * characters). Unset: no secret can be stored, so no tool can use a secret header.
   */
  TOOLGATE_SECRETS_KEY?: string;
  /** `"1"` lets data-defined tools target loopback `http` URLs (`npm start` only); otherwise `https` only. */
  TOOLGATE_ALLOW_LOOPBACK_TARGETS?: string;
  /** Base URL of the downstream service that HTTP tools call (optional). */
  TOOLGATE_DOWNSTREAM_URL?: string;
  /** Optional service binding used instead of `fetch(TOOLGATE_DOWNSTREAM_URL)` (tests, same-account services). */
  DOWNSTREAM?: Fetcher;
  /**
   * The Worker's static assets (wrangler.toml `[assets]`, the folder `assets/`; src/worker/assets.ts):
   * the OpenAPI document `npm run build:openapi` writes and the console's script and style sheet,
   * kept out of the Worker's bundle. Unbound (a Worker embedding the gate without it): their routes are 404.
   */
  ASSETS?: Fetcher;
  /** R2 bucket of Runtime checkpoints, purged per thread by `checkpoint_purge` envelopes. */
  CHECKPOINTS?: R2Bucket;
  /**
   * The key that signs audit checkpoints (a Worker secret, C2SP signer key text
   * `PRIVATE+KEY+<name>+<id>+<key>`, Ed25519; docs/audit.md). Parsed once per isolate, never
   * stored or logged. Unset: the checkpoint routes answer `404 AUDIT_SIGNING_NOT_CONFIGURED`.
   */
  TOOLGATE_AUDIT_SIGNING_KEY?: string;
  /** The signing key before a rotation (signer or verifier key text): its verifier key stays published. */
  TOOLGATE_AUDIT_SIGNING_KEY_PREVIOUS?: string;
  /** The first part of every checkpoint origin, `<name>/consumers/<consumer>` (default `toolgate`). */
  TOOLGATE_AUDIT_LOG_NAME?: string;
  /** R2 bucket of the audit witness: every signed checkpoint, one object each, never overwritten. */
  AUDIT_WITNESS?: R2Bucket;
  /**
   * R2 bucket of the audit archive: full C2SP tlog-tiles of entries a witnessed checkpoint covers,
   * whose SQLite rows are then deleted (docs/audit.md, "The archive"). Unbound: nothing is archived.
   */
  AUDIT_TILES?: R2Bucket;
  /** Newest audit entries always kept in SQLite, a decimal integer (default 4096). */
  TOOLGATE_AUDIT_KEEP_ENTRIES?: string;
  /**
   * OAuth sign-in of MCP clients (src/worker/features/oauth/): registered clients, grants and tokens, as the
   * OAuth provider library stores them (secrets only as hashes, props encrypted). Unbound: the
   * OAuth endpoints answer `404 OAUTH_NOT_CONFIGURED` and bearer credentials work as before.
   */
  OAUTH_KV?: KVNamespace;
  /**
   * The OTLP/HTTP traces URL of a collector (for example `https://otel.example/v1/traces`;
   * docs/traces.md): each agent tool call's spans are exported there as JSON. `https` only,
   * loopback `http` too where TOOLGATE_ALLOW_LOOPBACK_TARGETS is `"1"`. Unset: tracing is off.
   */
  TOOLGATE_OTLP_ENDPOINT?: string;
  /** Headers of every export (a Worker secret, `name=value,name2=value2`, e.g. a collector's API key); never logged. */
  TOOLGATE_OTLP_HEADERS?: string;
  /**
   * The gate's public origin (for example `https://gate.example.com`): approval webhooks carry the
   * console link of their approval (`console_url`; docs/webhooks.md). Unset or not an http(s)
   * URL: no link.
   */
  TOOLGATE_PUBLIC_URL?: string;
}
