// The end-user JWT verifier (src/worker/features/identity/jwt.ts) in workerd's Web Crypto, against
// tokens signed by jose (an independent JOSE implementation) or, where jose will not sign what an
// attacker sends, by Web Crypto directly over hand-written bytes.
import { CompactSign, exportJWK, FlattenedSign, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { JsonObject } from "../../../src/core/json";
import { MAX_TOKEN_CHARS, verifyJwt, type JwtChecks } from "../../../src/worker/features/identity/jwt";

const T0 = 1_784_419_200;
const ISSUER = "https://login.example.test/";
const AUDIENCE = "toolgate-jwt";
const ALL = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
const CHECKS: JwtChecks = { issuer: ISSUER, audience: AUDIENCE, algorithms: ALL, skewSeconds: 60, now: T0 };
const CLAIMS = { iss: ISSUER, aud: AUDIENCE, sub: "user-1", iat: T0, exp: T0 + 300 };

type Pair = { privateKey: CryptoKey; jwk: JsonObject };
const pairs = new Map<string, Pair>();

async function pair(alg: string): Promise<Pair> {
  const known = pairs.get(alg);
  if (known !== undefined) return known;
  const made = await generateKeyPair(alg, alg === "EdDSA" ? { crv: "Ed25519" } : {});
  const jwk = (await exportJWK(made.publicKey)) as unknown as JsonObject;
  const fresh = { privateKey: made.privateKey, jwk };
  pairs.set(alg, fresh);
  return fresh;
}

function sign(alg: string, claims: Record<string, unknown>, key: CryptoKey, header: Record<string, unknown> = {}) {
  return new SignJWT(claims).setProtectedHeader({ alg, ...header }).sign(key);
}

/** A compact JWS over exactly these payload bytes (jose signs them without reading them). */
function signBytes(alg: string, payload: string, key: CryptoKey, header: Record<string, unknown> = {}) {
  return new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg, ...header }).sign(key);
}

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

beforeAll(async () => {
  for (const alg of ["RS256", "PS384", "ES256", "ES384", "ES512", "EdDSA"]) await pair(alg);
});

describe("end-user JWTs: signatures", () => {
  it("verify under each algorithm family jose signs with, and answer the claims as read", async () => {
    const cases: Array<[string, string]> = [
      ["RS256", "RS256"],
      ["PS384", "PS384"],
      ["ES256", "ES256"],
      ["ES384", "ES384"],
      ["ES512", "ES512"],
      ["EdDSA", "EdDSA"],
      ["Ed25519", "EdDSA"],
    ];
    const results = [];
    for (const [alg, keyOf] of cases) {
      const { privateKey, jwk } = await pair(keyOf);
      const token = await sign(alg, { ...CLAIMS, roles: ["support"] }, privateKey);
      const result = await verifyJwt(token, [jwk], CHECKS);
      results.push([alg, result.ok ? result.claims["sub"] : result.failure]);
    }
    expect(results).toEqual(cases.map(([alg]) => [alg, "user-1"]));
  });

  it("refuse a signature of another key, an algorithm outside the list, HMAC and none", async () => {
    const { jwk } = await pair("ES256");
    const other = await generateKeyPair("ES256");
    const wrong = await sign("ES256", CLAIMS, other.privateKey);
    expect(await verifyJwt(wrong, [jwk], CHECKS)).toEqual({ ok: false, failure: { kind: "signature" } });
    const es = await sign("ES256", CLAIMS, (await pair("ES256")).privateKey);
    expect(await verifyJwt(es, [jwk], { ...CHECKS, algorithms: ["RS256"] })).toEqual({
      ok: false,
      failure: { kind: "algorithm" },
    });
    const hmac = await new SignJWT(CLAIMS).setProtectedHeader({ alg: "HS256" }).sign(new Uint8Array(32).fill(7));
    const secret = { kty: "oct", k: b64url("\x07".repeat(32)) };
    expect(await verifyJwt(hmac, [secret], { ...CHECKS, algorithms: [...ALL, "HS256"] })).toEqual({
      ok: false,
      failure: { kind: "algorithm" },
    });
    const none = `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify(CLAIMS))}.`;
    expect(await verifyJwt(none, [jwk], CHECKS)).toEqual({ ok: false, failure: { kind: "malformed" } });
    const noneSigned = `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify(CLAIMS))}.AAAA`;
    expect(await verifyJwt(noneSigned, [jwk], CHECKS)).toEqual({ ok: false, failure: { kind: "algorithm" } });
  });

  it("take only keys whose type, curve, kid, alg, use and key_ops fit the token", async () => {
    const es = await pair("ES256");
    const token = await sign("ES256", CLAIMS, es.privateKey, { kid: "k1" });
    const noKey = { ok: false, failure: { kind: "no-key" } };
    const rsaOnly = (await pair("RS256")).jwk;
    const p384 = (await pair("ES384")).jwk;
    expect(await verifyJwt(token, [rsaOnly, p384], CHECKS)).toEqual(noKey);
    expect(await verifyJwt(token, [{ ...es.jwk, kid: "k2" }], CHECKS)).toEqual(noKey);
    expect(await verifyJwt(token, [es.jwk], CHECKS)).toEqual(noKey); // the token names k1; this key has no kid
    expect(await verifyJwt(token, [{ ...es.jwk, kid: "k1", alg: "ES384" }], CHECKS)).toEqual(noKey);
    expect(await verifyJwt(token, [{ ...es.jwk, kid: "k1", use: "enc" }], CHECKS)).toEqual(noKey);
    expect(await verifyJwt(token, [{ ...es.jwk, kid: "k1", key_ops: ["sign"] }], CHECKS)).toEqual(noKey);
    const fits = { ...es.jwk, kid: "k1", alg: "ES256", use: "sig", key_ops: ["verify"] };
    expect((await verifyJwt(token, [fits], CHECKS)).ok).toBe(true);
    // An RS256 header over an EC key's signature: no RSA key, nothing to confuse.
    const confused = `${b64url('{"alg":"RS256","kid":"k1"}')}.${token.split(".")[1]}.${token.split(".")[2]}`;
    expect(await verifyJwt(confused, [{ ...es.jwk, kid: "k1" }], CHECKS)).toEqual(noKey);
  });

  it("try every fitting key when the token names none, and never import a key's private members", async () => {
    const es = await pair("ES256");
    const other = await generateKeyPair("ES256", { extractable: true });
    const token = await sign("ES256", CLAIMS, es.privateKey);
    const first = (await exportJWK(other.publicKey)) as unknown as JsonObject;
    expect((await verifyJwt(token, [first, es.jwk], CHECKS)).ok).toBe(true);
    // A private JWK in the set verifies as its public half (its `d` is never imported).
    const own = await generateKeyPair("ES256", { extractable: true });
    const priv = (await exportJWK(own.privateKey)) as unknown as JsonObject;
    expect(typeof priv["d"]).toBe("string");
    expect((await verifyJwt(await sign("ES256", CLAIMS, own.privateKey), [priv], CHECKS)).ok).toBe(true);
  });

  it("import each issuer key once per algorithm while its JWK object lives", async () => {
    const own = await generateKeyPair("ES256", { extractable: true });
    const jwk = (await exportJWK(own.publicKey)) as unknown as JsonObject;
    const token = await sign("ES256", CLAIMS, own.privateKey);
    const imports = vi.spyOn(crypto.subtle, "importKey");
    try {
      for (let i = 0; i < 3; i++) expect((await verifyJwt(token, [jwk], CHECKS)).ok).toBe(true);
      expect(imports).toHaveBeenCalledTimes(1);
      // The same key as another object (a configuration written again) is imported again.
      expect((await verifyJwt(token, [{ ...jwk }], CHECKS)).ok).toBe(true);
      expect(imports).toHaveBeenCalledTimes(2);
    } finally {
      imports.mockRestore();
    }
  });

  it("never take an RSA key under 2,048 bits", async () => {
    const weak = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    );
    const keys = weak as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as unknown as JsonObject;
    const head = b64url('{"alg":"RS256"}');
    const body = b64url(JSON.stringify(CLAIMS));
    const sig = new Uint8Array(
      await crypto.subtle.sign("RSASSA-PKCS1-v1_5", keys.privateKey, new TextEncoder().encode(`${head}.${body}`)),
    );
    const token = `${head}.${body}.${b64url(String.fromCharCode(...sig))}`;
    expect(await verifyJwt(token, [jwk], CHECKS)).toEqual({ ok: false, failure: { kind: "no-key" } });
  });
});

describe("end-user JWTs: the text", () => {
  it("refuse a claim named twice, a critical extension, an unencoded payload, padding and oversize", async () => {
    const { privateKey, jwk } = await pair("ES256");
    const malformed = { ok: false, failure: { kind: "malformed" } };
    const twice = `{"iss":"${ISSUER}","aud":"${AUDIENCE}","sub":"user-1","sub":"admin","exp":${T0 + 300}}`;
    expect(await verifyJwt(await signBytes("ES256", twice, privateKey), [jwk], CHECKS)).toEqual(malformed);
    const crit = await new CompactSign(new TextEncoder().encode(JSON.stringify(CLAIMS)))
      .setProtectedHeader({ alg: "ES256", crit: ["exp"], exp: 1 })
      .sign(privateKey, { crit: { exp: true } });
    expect(await verifyJwt(crit, [jwk], CHECKS)).toEqual(malformed);
    const flat = await new FlattenedSign(new TextEncoder().encode("x"))
      .setProtectedHeader({ alg: "ES256", b64: false, crit: ["b64"] })
      .sign(privateKey);
    expect(await verifyJwt(`${flat.protected}.x.${flat.signature}`, [jwk], CHECKS)).toEqual(malformed);
    const good = await sign("ES256", CLAIMS, privateKey);
    expect((await verifyJwt(good, [jwk], CHECKS)).ok).toBe(true);
    const [h, p, s] = good.split(".");
    expect(await verifyJwt(`${h}=.${p}.${s}`, [jwk], CHECKS)).toEqual(malformed);
    expect(await verifyJwt(`${h}.${p}.${s}.`, [jwk], CHECKS)).toEqual(malformed);
    expect(await verifyJwt("not-a-jwt", [jwk], CHECKS)).toEqual(malformed);
    const big = await sign("ES256", { ...CLAIMS, pad: "x".repeat(MAX_TOKEN_CHARS) }, privateKey);
    expect(await verifyJwt(big, [jwk], CHECKS)).toEqual(malformed);
    const array = await signBytes("ES256", "[1]", privateKey);
    expect(await verifyJwt(array, [jwk], CHECKS)).toEqual(malformed);
  });
});

describe("end-user JWTs: claims", () => {
  it("check exp, iss, aud, nbf and iat as RFC 7519 and jose do, within the skew", async () => {
    const { privateKey, jwk } = await pair("ES256");
    const verdict = async (claims: Record<string, unknown>) => {
      const result = await verifyJwt(await sign("ES256", claims, privateKey), [jwk], CHECKS);
      return result.ok ? "ok" : result.failure;
    };
    const claim = (claim: string, reason: string) => ({ kind: "claim", claim, reason });
    const { exp: _exp, ...noExp } = CLAIMS;
    expect([
      await verdict(noExp),
      await verdict({ ...CLAIMS, exp: "soon" }),
      await verdict({ ...CLAIMS, exp: T0 - 60 }),
      await verdict({ ...CLAIMS, exp: T0 - 59 }),
      await verdict({ ...CLAIMS, iss: "https://evil.example.test/" }),
      await verdict({ ...CLAIMS, iss: undefined }),
      await verdict({ ...CLAIMS, aud: "someone-else" }),
      await verdict({ ...CLAIMS, aud: ["someone-else", AUDIENCE] }),
      await verdict({ ...CLAIMS, aud: ["someone-else"] }),
      await verdict({ ...CLAIMS, nbf: T0 + 60 }),
      await verdict({ ...CLAIMS, nbf: T0 + 61 }),
      await verdict({ ...CLAIMS, nbf: "later" }),
      await verdict({ ...CLAIMS, iat: "then" }),
    ]).toEqual([
      claim("exp", "missing"),
      claim("exp", "invalid"),
      { kind: "expired" },
      "ok",
      claim("iss", "check_failed"),
      claim("iss", "check_failed"),
      claim("aud", "check_failed"),
      "ok",
      claim("aud", "check_failed"),
      "ok",
      claim("nbf", "check_failed"),
      claim("nbf", "invalid"),
      claim("iat", "invalid"),
    ]);
  });

  it("read a time written as a float (1.0) as its number", async () => {
    const { privateKey, jwk } = await pair("ES256");
    const text = `{"aud":"${AUDIENCE}","exp":${T0 + 300}.0,"iss":"${ISSUER}","sub":"user-1"}`;
    const result = await verifyJwt(await signBytes("ES256", text, privateKey), [jwk], CHECKS);
    expect(result.ok).toBe(true);
    const expired = `{"aud":"${AUDIENCE}","exp":${T0 - 60}.0,"iss":"${ISSUER}","sub":"user-1"}`;
    expect(await verifyJwt(await signBytes("ES256", expired, privateKey), [jwk], CHECKS)).toEqual({
      ok: false,
      failure: { kind: "expired" },
    });
  });
});
