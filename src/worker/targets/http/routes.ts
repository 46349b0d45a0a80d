/**
 * `GET /v1/consumers/{consumer}/signing-keys` (public): the public keys a downstream verifies
 * the consumer's request signatures with (docs/http-tools.md), as a JWK Set. Answered by the
 * Worker alone, for any valid consumer name (a key is derived, not looked up, so the answer
 * says nothing of whether the consumer exists); never a private key.
 * @module
 */
import { ConsumerName } from "../../../contracts/consumer";
import { SigningKeySet } from "../../../contracts/service";
import { canonicalJson } from "../../../core/json";
import { problem, problemResponse } from "../../http/problem";
import { publishedKeys } from "./signing-keys";
import { handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

/** How long a downstream may reuse the answer (seconds); it refetches sooner on an unknown `keyid`. */
export const SIGNING_KEYS_MAX_AGE_SECONDS = 300;

/** The public route of the request-signing keys. */
export const signingKeyRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/v1/consumers/{consumer}/signing-keys",
      summary: DOCS
        ? "The Ed25519 public keys of the consumer's request signatures (RFC 9421 `ed25519`), as a JWK Set: the current key, then the previous one during a rotation."
        : "",
      operation: "none",
      response: {
        status: 200,
        schema: SigningKeySet,
        description: DOCS ? '`{"keys": [JWK, ...]}`; each `kid` is the `keyid` of the signatures it verifies.' : "",
      },
      problems: ["NOT_FOUND", "SIGNING_NOT_CONFIGURED"],
      handlers: handlers((c) => {
        const consumer = pathParam(c, "consumer");
        if (!ConsumerName.safeParse(consumer).success)
          return problemResponse(problem("NOT_FOUND", "No such consumer."));
        const keys = publishedKeys(c.env, consumer);
        if (keys.length === 0)
          return problemResponse(
            problem(
              "SIGNING_NOT_CONFIGURED",
              "This deployment sets no TOOLGATE_SIGNING_KEY of at least 32 characters: no request is signed.",
            ),
          );
        return new Response(canonicalJson({ keys }), {
          headers: {
            "content-type": "application/json",
            "cache-control": `public, max-age=${SIGNING_KEYS_MAX_AGE_SECONDS}`,
          },
        });
      }),
    },
  ],
};
