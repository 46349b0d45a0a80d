/**
 * CORS (the Fetch standard's CORS protocol) for browser clients on other origins. Which route
 * offers it is read from the route registry's operations and the access table:
 * - a consumer route that a consumer credential may call: only for the origins in that
 *   consumer's `cors_origins` (exact match), each answer with `Vary: Origin`;
 * - the public documents (their routes are declared `cors: "public"`): `*`;
 * - a route only the admin secret may call: never (its preflight is refused);
 * - anything else (the approver console, same-origin only; OAuth, which answers its own
 *   preflights): not handled here.
 * A refused preflight is `403 ORIGIN_REFUSED` without CORS headers, the same whether the
 * consumer allows other origins, allows none, or does not exist.
 * @module
 */
import { credentialKinds } from "../../contracts/access";
import { ConsumerName } from "../../contracts/consumer";
import { LruMap } from "../lru";
import type { Env } from "../env";
import type { OperationDoc } from "./openapi/operation";
import { problem, problemResponse } from "./problem";
import { corsOriginsOf } from "./cors-origins";

/** Request headers a page may send to a consumer route (its preflight's `Access-Control-Allow-Headers`). */
export const CORS_ALLOW_HEADERS =
  "authorization, content-type, idempotency-key, mcp-session-id, mcp-protocol-version, last-event-id";
/** Answer headers a page may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = "retry-after, www-authenticate, mcp-session-id, location";
/** How long a browser may reuse a preflight's answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600;
/** What a route declares of CORS (routes/route.ts): `public` for a document any origin may read, `false` for none. */
export type CorsOffer = "public" | false;

/** An operation as CORS reads it: its declaration's documented part and its CORS offer. */
export interface CorsOperation extends OperationDoc {
  readonly cors?: CorsOffer;
}

/** The order methods are listed in (`Allow`, `Access-Control-Allow-Methods`). */
export const METHOD_ORDER: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** What CORS a path offers. */
export type CorsRoute =
  | { readonly kind: "public"; readonly methods: readonly string[] }
  | { readonly kind: "consumer"; readonly consumer: string; readonly methods: readonly string[] }
  | { readonly kind: "closed" };

interface Shape {
  /** The template's segments split at "/": a literal, or `null` for a parameter (any non-empty segment). */
  readonly segments: readonly (string | null)[];
  /** Where `{consumer}` is among the segments (-1: not a consumer route). */
  readonly consumerAt: number;
  readonly method: string;
  /** A consumer credential may call it (not only the admin secret, not a public route). */
  readonly credential: boolean;
  readonly open: boolean;
  /** Any origin may read it (no credential, nothing of a consumer). */
  readonly public: boolean;
}

const PARAMETER = /^\{[a-z_]+\}$/;

function shapeOf(op: CorsOperation): Shape {
  const parts = op.path.split("/");
  // Every parameter is a whole segment; a template that mixes one into a literal is a bug here.
  if (parts.some((part) => part.includes("{") && !PARAMETER.test(part)))
    throw new Error(`CORS cannot read the route template ${op.path}`);
  return {
    segments: parts.map((part) => (PARAMETER.test(part) ? null : part)),
    consumerAt: parts.indexOf("{consumer}"),
    method: op.method.toUpperCase(),
    credential: op.operation !== "none" && credentialKinds(op.operation).length > 0,
    open: op.operation === "none",
    public: op.cors === "public",
  };
}

/** Whether a request path's segments fit a shape's (same count, literals equal, parameters non-empty). */
function fits(shape: Shape, parts: readonly string[]): boolean {
  return shape.segments.every((segment, i) => (segment === null ? parts[i] !== "" : segment === parts[i]));
}

function ordered(methods: Iterable<string>): string[] {
  const set = new Set(methods);
  return METHOD_ORDER.filter((m) => set.has(m));
}

/** The consumer a path segment names, decoded as the router decodes parameters; `null` if it names none. */
export function consumerOf(segment: string | undefined): string | null {
  if (segment === undefined) return null;
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return null;
  }
  return ConsumerName.safeParse(name).success ? name : null;
}

/** How many paths' offers are kept (least recently used forgotten first), and the longest path kept. */
const RECENT_PATHS = 512;
const RECENT_PATH_CHARS = 256;

/** The CORS offer of each documented path, matched against a request's path. */
export class CorsRoutes {
  /** The shapes by their number of segments: a request is compared with those of its own count only. */
  readonly #bySegments = new Map<number, Shape[]>();

  constructor(operations: readonly CorsOperation[]) {
    for (const shape of operations.map(shapeOf)) {
      const list = this.#bySegments.get(shape.segments.length) ?? [];
      list.push(shape);
      this.#bySegments.set(shape.segments.length, list);
    }
  }

  /** Recent answers by path (a pure function of it): a client calls the same few paths again and again. */
  readonly #recent = new LruMap<string, CorsRoute | null>(RECENT_PATHS);

  /** What CORS `path` offers; `null` for a path this module leaves alone. */
  route(path: string): CorsRoute | null {
    const known = this.#recent.get(path);
    if (known !== undefined) return known;
    const answer = this.#offer(path);
    if (path.length <= RECENT_PATH_CHARS) this.#recent.set(path, answer);
    return answer;
  }

  #offer(path: string): CorsRoute | null {
    const parts = path.split("/");
    const matched = (this.#bySegments.get(parts.length) ?? []).flatMap((shape) =>
      fits(shape, parts) ? [{ shape, consumer: shape.consumerAt < 0 ? undefined : parts[shape.consumerAt] }] : [],
    );
    if (matched.length === 0) return null;
    if (matched.some((m) => m.shape.public))
      return { kind: "public", methods: ordered(matched.map((m) => m.shape.method)) };
    if (matched.every((m) => m.shape.open)) return null;
    const offered = matched.filter((m) => m.shape.credential);
    if (offered.length === 0) return { kind: "closed" };
    // A segment that names no consumer allows no origin, like a consumer that does not exist.
    return {
      kind: "consumer",
      consumer: consumerOf(offered[0]?.consumer) ?? "",
      methods: ordered(offered.map((m) => m.shape.method)),
    };
  }
}

/** Whether a request is a CORS preflight (an `OPTIONS` with `Origin` and `Access-Control-Request-Method`). */
export function isPreflight(request: Request): boolean {
  return (
    request.method === "OPTIONS" &&
    request.headers.has("origin") &&
    request.headers.has("access-control-request-method")
  );
}

function refused(detail: string): Response {
  const res = problemResponse(problem("ORIGIN_REFUSED", detail));
  res.headers.set("vary", "Origin");
  return res;
}

/** The answer to a preflight of a path this module handles. */
export async function preflight(env: Env, route: CorsRoute, origin: string): Promise<Response> {
  if (route.kind === "closed")
    return refused("This route takes the admin secret: it is never offered to pages on other origins.");
  const allowed =
    route.kind === "public" ? "*" : (await corsOriginsOf(env, route.consumer)).includes(origin) ? origin : null;
  if (allowed === null) return refused("The Origin is not in this consumer's cors_origins.");
  const headers: Record<string, string> = {
    "access-control-allow-origin": allowed,
    "access-control-allow-methods": route.methods.join(", "),
    "access-control-allow-headers": CORS_ALLOW_HEADERS,
    "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
  };
  if (route.kind === "consumer") headers["vary"] = "Origin";
  return new Response(null, { status: 204, headers });
}

/** The CORS headers of an actual answer (`origin`: the request's, or null without one). */
export async function answerHeaders(
  env: Env,
  route: CorsRoute,
  origin: string | null,
): Promise<Record<string, string>> {
  if (route.kind === "closed") return {};
  if (route.kind === "public") return { "access-control-allow-origin": "*" };
  if (origin === null || !(await corsOriginsOf(env, route.consumer)).includes(origin)) return { vary: "Origin" };
  return {
    vary: "Origin",
    "access-control-allow-origin": origin,
    "access-control-expose-headers": CORS_EXPOSE_HEADERS,
  };
}

/**
 * Whether `origin` is in the allow-list of the consumer a path segment names (for a route's own
 * `Origin` rule, such as the MCP endpoint's DNS-rebinding check, to accept a listed origin).
 */
export async function corsOriginAllowed(
  env: Env,
  consumerSegment: string | undefined,
  origin: string | null | undefined,
): Promise<boolean> {
  const consumer = consumerOf(consumerSegment);
  if (consumer === null || origin === null || origin === undefined) return false;
  return (await corsOriginsOf(env, consumer)).includes(origin);
}
