import type { PrincipalTokenIssuer } from "../../../contracts/consumer";
import { PyFloat, readJson, type Json, type JsonObject } from "../../../core/json";
import * as z from "../../../core/zod";
import { readCappedBytes } from "../../http/body";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { verifyJwt, type JwtFailure } from "./jwt";

/** What a verified end-user token says: the subject and the roles of its configured claims, and all its claims. */
export interface VerifiedPrincipal {
  subjectId: string;
  roles: string[];
  /** The token's claims (JSON values only, at most 8 levels deep), for tools' CEL rules (`principal.claims`). */
  claims: JsonObject;
}

/** A copy of a claim value for tools' rules: values deeper than `depth` are dropped. */
function claimValue(value: Json, depth: number): Json | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number")
    return value;
  if (value instanceof PyFloat) return value.value;
  if (depth <= 0 || typeof value !== "object") return undefined;
  if (Array.isArray(value))
    return value.flatMap((item) => {
      const copy = claimValue(item, depth - 1);
      return copy === undefined ? [] : [copy];
    });
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const copy = claimValue(item, depth - 1);
    if (copy !== undefined)
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Largest JWKS document fetched from an issuer. */
export const MAX_JWKS_BYTES = 65_536;
/** How long a JWKS fetch may take. */
export const JWKS_FETCH_TIMEOUT_MS = 5_000;
/** A key id the cached set lacks triggers a refetch at most this often. */
export const JWKS_REFETCH_COOLDOWN_SECONDS = 60;
/** Roles a token may carry. */
export const MAX_TOKEN_ROLES = 32;

const FetchedJwks = z.deferred(() =>
  z.looseObject({
    keys: z.array(z.looseObject({ kty: z.string() })).check(z.minLength(1), z.maxLength(32)),
  }),
);

/** An issuer's keys: the JWKS's members, each an object with `kty`. */
type KeySet = readonly JsonObject[];

function rejected(detail: string): Outcome<never> {
  return fail(problem("PRINCIPAL_TOKEN_REJECTED", detail));
}

/** Why a token was refused, in words that name the check and never echo the token. */
function reason(failure: JwtFailure): string {
  switch (failure.kind) {
    case "expired":
      return "The principal token has expired.";
    case "claim":
      return `The principal token's \`${failure.claim}\` claim is not accepted (${failure.reason}).`;
    case "signature":
      return "The principal token's signature does not verify.";
    case "no-key":
      return "No key of the issuer matches the principal token.";
    case "algorithm":
      return "The principal token's algorithm is not allowed.";
    case "malformed":
      return "The principal token is not a valid JWT.";
  }
}

function claimsOf(payload: JsonObject, issuer: PrincipalTokenIssuer): Outcome<VerifiedPrincipal> {
  const subject = payload[issuer.subject_claim];
  if (typeof subject !== "string" || subject.length === 0 || subject.length > 1024)
    return rejected(`The principal token's \`${issuer.subject_claim}\` claim is not a subject.`);
  const raw = payload[issuer.roles_claim];
  const roles: unknown =
    raw === undefined ? [] : typeof raw === "string" ? raw.split(" ").filter((r) => r !== "") : raw;
  if (
    !Array.isArray(roles) ||
    roles.length > MAX_TOKEN_ROLES ||
    !roles.every((r) => typeof r === "string" && r.length > 0 && r.length <= 1024)
  ) {
    return rejected(
      `The principal token's \`${issuer.roles_claim}\` claim is not a list of at most ${MAX_TOKEN_ROLES} roles.`,
    );
  }
  const claims = claimValue(payload, 8);
  return ok({
    subjectId: subject,
    roles: roles as string[],
    claims: claims !== null && typeof claims === "object" && !Array.isArray(claims) ? (claims as JsonObject) : {},
  });
}

/**
 * Verifies end users' JWTs against the consumer's issuer (./jwt.ts): signature under the issuer's
 * JWKS (inline, or fetched from `jwks_uri` and cached for `jwks_cache_seconds`), `iss`, `aud`,
 * `exp` (required) and `nbf` with at most `max_skew_seconds` of skew, one of the allowed
 * algorithms. The JWKS is read with the strict JSON reader like any other untrusted input.
 */
export class PrincipalTokens {
  #cached: { uri: string; keys: KeySet; fetchedAt: number } | undefined;

  constructor(private readonly fetcher: (url: string, init: RequestInit) => Promise<Response>) {}

  async verify(issuer: PrincipalTokenIssuer, token: string, now: number): Promise<Outcome<VerifiedPrincipal>> {
    const first = await this.#keys(issuer, now, false);
    if (!first.ok) return first;
    const result = await this.#check(issuer, token, first.value, now);
    if (result !== "no-matching-key") return result;
    // The issuer may have rotated its keys since the set was cached: fetch again, not too often.
    const stale = this.#cached !== undefined && now - this.#cached.fetchedAt >= JWKS_REFETCH_COOLDOWN_SECONDS;
    if (issuer.jwks_uri === undefined || !stale) return rejected(reason({ kind: "no-key" }));
    const fresh = await this.#keys(issuer, now, true);
    if (!fresh.ok) return fresh;
    const again = await this.#check(issuer, token, fresh.value, now);
    return again === "no-matching-key" ? rejected(reason({ kind: "no-key" })) : again;
  }

  async #check(
    issuer: PrincipalTokenIssuer,
    token: string,
    keys: KeySet,
    now: number,
  ): Promise<Outcome<VerifiedPrincipal> | "no-matching-key"> {
    const verified = await verifyJwt(token, keys, {
      issuer: issuer.issuer,
      audience: issuer.audience,
      algorithms: issuer.algorithms,
      skewSeconds: issuer.max_skew_seconds,
      now,
    });
    if (verified.ok) return claimsOf(verified.claims, issuer);
    return verified.failure.kind === "no-key" ? "no-matching-key" : rejected(reason(verified.failure));
  }

  async #keys(issuer: PrincipalTokenIssuer, now: number, refresh: boolean): Promise<Outcome<KeySet>> {
    if (issuer.jwks !== undefined) return ok(issuer.jwks.keys as KeySet);
    const uri = issuer.jwks_uri;
    if (uri === undefined) throw new Error("the issuer contract admits exactly one of jwks and jwks_uri");
    const cached = this.#cached;
    if (!refresh && cached !== undefined && cached.uri === uri && now - cached.fetchedAt < issuer.jwks_cache_seconds)
      return ok(cached.keys);
    const fetched = await this.#fetch(uri);
    if (!fetched.ok) return fetched;
    this.#cached = { uri, keys: fetched.value, fetchedAt: now };
    return ok(this.#cached.keys);
  }

  async #fetch(uri: string): Promise<Outcome<KeySet>> {
    let response: Response;
    try {
      response = await this.fetcher(uri, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
        redirect: "error",
      });
    } catch {
      return rejected("The issuer's keys could not be fetched.");
    }
    if (response.status !== 200) return rejected(`The issuer's keys could not be fetched (HTTP ${response.status}).`);
    const bytes = await readCappedBytes(response, MAX_JWKS_BYTES);
    if (!bytes.ok) return rejected("The issuer's key set is too large.");
    const read = readJson(bytes.value, { maxBytes: MAX_JWKS_BYTES });
    const parsed = read.ok ? FetchedJwks.safeParse(read.value) : undefined;
    if (parsed === undefined || !parsed.success) return rejected("The issuer's key set is not a JWKS.");
    return ok(parsed.data.keys as KeySet);
  }
}
