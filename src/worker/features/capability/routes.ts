import type { Context, MiddlewareHandler } from "hono";
import { toolActorId, toolProviderId, U64_MAX } from "../../../core/capability";
import {
  CapabilityAnswer,
  CapabilityAuthorityRequest,
  CapabilityDetachPost,
  CapabilityInstanceUpdate,
  CapabilityObservationPost,
  CapabilityProviderRegistration,
  CapabilityRequestBody,
} from "../../../contracts/capability";
import type { CapabilityCall } from "./calls";
import { socketToken } from "./socket";
import type { Operation } from "../../../contracts/access";
import type { OperationDoc } from "../../http/openapi/operation";
import { problem, problemResponse, type ProblemCode } from "../../http/problem";
import { jsonBody, stubOf, type ConsumerVariables, type GateEnv } from "../../http/middleware";
import { respond } from "../../http/respond";
import { BODY_PROBLEMS, handlers, pathParam, type Route, type RouteModule } from "../../http/route";
import { forwardSocket } from "../sockets/routes";
import { DOCS } from "../../../contracts/docs";

/** Longest long-poll wait, in milliseconds. */
export const MAX_POLL_WAIT_MS = 25_000;

const wire = { wire: true } as const;

/** A u64 in decimal (path segment or query value), or `null` if it is not one. */
export function parseU64(text: string | undefined): bigint | null {
  if (text === undefined || !/^(0|[1-9][0-9]{0,19})$/.test(text)) return null;
  const value = BigInt(text);
  return value <= U64_MAX ? value : null;
}

function notFound(what: string): Response {
  return problemResponse(problem("NOT_FOUND", `No such ${what}.`));
}

/** Hands the call to the consumer's object with the caller the gate admitted. */
async function call(gate: ConsumerVariables, request: CapabilityCall, status: 200 | 201 = 200): Promise<Response> {
  return respond(await gate.object.capabilityCall(gate.consumer, gate.token, request), status);
}

/**
 * A path parameter's check. Every route authenticates first (`consumerGate`), then checks its
 * path parameters (a bad one is a 404), then reads its body: a request without a valid
 * credential is always the one 401, whatever its path or body.
 */
function param(name: string, valid: (text: string) => boolean, what: string): MiddlewareHandler<GateEnv> {
  return async function param(c, next) {
    if (!valid(c.req.param(name) ?? "")) return notFound(what);
    await next();
  };
}

const u64Param = (name: string, what: string) => param(name, (text) => parseU64(text) !== null, what);
const providerParam = param("provider_id", (text) => toolProviderId.safeParse(text).success, "provider");
const u64 = (c: Context, name: string): bigint => parseU64(c.req.param(name)) ?? 0n;

/** Longest `cursor` the approvals route reads (longer is `400 INVALID_CURSOR` without a look inside). */
const MAX_CURSOR_CHARS = 128;

/** The long-poll query (`binding_id`, optional `after`, `wait`), or `null` if it is not as documented. */
function pollQuery(c: Context): { bindingId: bigint; after: bigint | null; waitMs: number } | null {
  const bindingId = parseU64(c.req.query("binding_id"));
  const afterText = c.req.query("after");
  const after = afterText === undefined ? null : parseU64(afterText);
  const waitMs = Number(c.req.query("wait") ?? "0");
  const valid =
    bindingId !== null &&
    (afterText === undefined || after !== null) &&
    Number.isInteger(waitMs) &&
    waitMs >= 0 &&
    waitMs <= MAX_POLL_WAIT_MS;
  return valid ? { bindingId, after, waitMs } : null;
}

const pollParams: MiddlewareHandler<GateEnv> = async function pollParams(c, next) {
  if (pollQuery(c) === null) {
    return problemResponse(
      problem(
        "INVALID_REQUEST",
        `binding_id (u64), after (u64, optional) and wait (0..${MAX_POLL_WAIT_MS} ms) are required as documented.`,
      ),
    );
  }
  await next();
};

const AUTH: readonly ProblemCode[] = ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"];
const ENGINE: readonly ProblemCode[] = ["CAPABILITY_INVALID", "CAPABILITY_REJECTED", "CAPABILITY_CAPACITY"];
const P = "/v1/consumers/{consumer}/capability";

/** A capability route: the engine's answer by default; `extra` adds to or replaces the defaults. */
function op(
  method: OperationDoc["method"],
  path: string,
  operation: Operation,
  summary: string,
  route: Pick<Route, "handlers"> & Partial<Route>,
): Route {
  const { handlers: chain, ...extra } = route;
  return {
    method,
    path: `${P}${path}`,
    summary,
    operation,
    // The provider's socket authenticates itself (its credential may come in a subprotocol).
    ...(operation === "connect" ? {} : { auth: "credential" as const }),
    response: {
      status: 200,
      schema: CapabilityAnswer,
      description: DOCS ? "The engine's answer in wire JSON (see docs/capability-http.md)." : "",
    },
    problems: [...AUTH, ...(extra.request === undefined ? [] : BODY_PROBLEMS), ...ENGINE],
    ...extra,
    handlers: chain,
  };
}

/** Capability service routes: admin setup, authority, agent requests, providers, snapshots. */
export const capabilityRoutes: RouteModule = {
  routes: [
    op(
      "post",
      "/providers",
      "register-provider",
      "Register a capability provider of this consumer (browser.* and consumer-state.* only).",
      {
        request: CapabilityProviderRegistration,
        response: { status: 201, schema: CapabilityAnswer, description: DOCS ? "`{provider_id}`." : "" },
        handlers: handlers(jsonBody(CapabilityProviderRegistration, wire), (c) =>
          call(c.var, { kind: "register-provider", body: c.var.body }, 201),
        ),
      },
    ),
    op(
      "put",
      "/instances/{instance_id}",
      "set-instance",
      "Set an instance's generation and state (set-generation, then set-instance-state).",
      {
        request: CapabilityInstanceUpdate,
        handlers: handlers(u64Param("instance_id", "instance"), jsonBody(CapabilityInstanceUpdate, wire), (c) =>
          call(c.var, { kind: "set-instance", instanceId: u64(c, "instance_id"), body: c.var.body }),
        ),
      },
    ),
    op(
      "delete",
      "/instances/{instance_id}",
      "remove-instance",
      "Remove an instance: its grants go, its open requests close as instance-closed.",
      {
        handlers: handlers(u64Param("instance_id", "instance"), (c) =>
          call(c.var, { kind: "remove-instance", instanceId: u64(c, "instance_id") }),
        ),
      },
    ),
    op(
      "post",
      "/authority",
      "authority",
      "Apply one authority command (set-grant, revoke-grant, resolve-approval, close-client).",
      {
        request: CapabilityAuthorityRequest,
        problems: [...AUTH, "APPROVER_NOT_ALLOWED", "SELF_APPROVAL_FORBIDDEN", ...BODY_PROBLEMS, ...ENGINE],
        handlers: handlers(jsonBody(CapabilityAuthorityRequest, wire), (c) =>
          call(c.var, { kind: "authority", body: c.var.body }),
        ),
      },
    ),
    op(
      "get",
      "/approvals",
      "approvals",
      "One page of the capability requests awaiting approval (oldest first), the next page's cursor and the last authority sequence.",
      {
        query: {
          cursor: {
            description: DOCS ? "The `next_cursor` of the previous page (opaque); absent for the first page." : "",
            schema: { type: "string", maxLength: MAX_CURSOR_CHARS },
          },
        },
        problems: [...AUTH, "APPROVER_NOT_ALLOWED", "INVALID_CURSOR"],
        handlers: handlers((c) => {
          const cursor = c.req.query("cursor") ?? null;
          if (cursor !== null && cursor.length > MAX_CURSOR_CHARS)
            return problemResponse(problem("INVALID_CURSOR", "The cursor is malformed."));
          return call(c.var, { kind: "approvals", cursor });
        }),
      },
    ),
    op(
      "post",
      "/requests",
      "request",
      "Submit a capability request; answers the policy decision (a denial is a 200).",
      {
        request: CapabilityRequestBody,
        problems: [...AUTH, "PRINCIPAL_MISMATCH", ...BODY_PROBLEMS, ...ENGINE],
        handlers: handlers(jsonBody(CapabilityRequestBody, wire), (c) =>
          call(c.var, { kind: "request", body: c.var.body }),
        ),
      },
    ),
    op("get", "/requests/{actor_id}/{local_id}", "request-status", "The public record of one capability request.", {
      handlers: handlers(
        param("actor_id", (text) => toolActorId.safeParse(text).success, "capability request"),
        u64Param("local_id", "capability request"),
        (c) => call(c.var, { kind: "request-status", actorId: pathParam(c, "actor_id"), localId: u64(c, "local_id") }),
      ),
    }),
    op(
      "post",
      "/completions/drain",
      "drain-completions",
      "Drain one actor's completions (CapabilityCompletionBatch): a subject-bound credential its own, a host credential the actor it names.",
      {
        query: {
          actor_id: {
            description: DOCS
              ? "The actor whose completions to drain: required with a host agent credential; with a subject-bound one, its subject or absent."
              : "",
            schema: { type: "string" },
          },
        },
        problems: [...AUTH, "INVALID_REQUEST"],
        handlers: handlers((c) => {
          const actor = c.req.query("actor_id") ?? null;
          if (actor !== null && !toolActorId.safeParse(actor).success)
            return problemResponse(problem("INVALID_REQUEST", "actor_id is not an actor id."));
          return call(c.var, { kind: "drain-completions", actorId: actor });
        }),
      },
    ),
    op("get", "/snapshot", "snapshot", "The engine snapshot and the provider-runtime snapshot.", {
      handlers: handlers((c) => call(c.var, { kind: "snapshot" })),
    }),
    op(
      "get",
      "/providers/{provider_id}/connect",
      "connect",
      "Attach the provider over a WebSocket (hibernation); effects are pushed, observations received.",
      {
        response: { status: 101, description: DOCS ? "Switching protocols (subprotocol toolgate-provider-v1)." : "" },
        problems: [...AUTH, "UPGRADE_REQUIRED", "QUOTA_EXCEEDED", ...ENGINE],
        // The credential may come in a subprotocol (browsers cannot set headers on a WebSocket), so
        // the object checks it; the route matches the path and the upgrade.
        handlers: handlers(providerParam, (c) => {
          const consumer = pathParam(c, "consumer");
          const stub = stubOf(c.env, consumer);
          if (stub === null) return notFound("consumer");
          const providerId = pathParam(c, "provider_id");
          return forwardSocket(c.req.raw, c.env, stub, {
            route: "capability",
            consumer,
            token: socketToken(c.req.raw) ?? "",
            providerId,
          });
        }),
      },
    ),
    op(
      "post",
      "/providers/{provider_id}/attach",
      "attach",
      "Attach the provider for long-polling; answers the binding id and the lease.",
      {
        handlers: handlers(providerParam, (c) =>
          call(c.var, { kind: "attach", providerId: pathParam(c, "provider_id") }),
        ),
      },
    ),
    op(
      "get",
      "/providers/{provider_id}/effects",
      "poll",
      "Long-poll the provider's effects (acknowledge up to `after`, wait up to `wait` ms).",
      {
        query: {
          binding_id: {
            description: DOCS ? "The binding id answered by attach." : "",
            schema: { type: "string", pattern: "^[0-9]+$" },
          },
          after: {
            description: DOCS ? "Acknowledge effects with sequence ≤ after." : "",
            schema: { type: "string", pattern: "^[0-9]+$" },
          },
          wait: {
            description: DOCS ? `Milliseconds to wait for an effect (0..${MAX_POLL_WAIT_MS}).` : "",
            schema: { type: "integer", minimum: 0, maximum: MAX_POLL_WAIT_MS },
          },
        },
        problems: [...AUTH, "INVALID_REQUEST", ...ENGINE],
        handlers: handlers(providerParam, pollParams, (c) => {
          const query = pollQuery(c);
          if (query === null) throw new Error("the poll query passed its check and then failed it");
          return call(c.var, { kind: "poll", providerId: pathParam(c, "provider_id"), ...query });
        }),
      },
    ),
    op("post", "/providers/{provider_id}/observations", "observe", "Report one observation under the binding.", {
      request: CapabilityObservationPost,
      handlers: handlers(providerParam, jsonBody(CapabilityObservationPost, wire), (c) =>
        call(c.var, { kind: "observe", providerId: pathParam(c, "provider_id"), body: c.var.body }),
      ),
    }),
    op(
      "post",
      "/providers/{provider_id}/detach",
      "detach",
      "Detach the binding; requests in flight end as provider-detached.",
      {
        request: CapabilityDetachPost,
        handlers: handlers(providerParam, jsonBody(CapabilityDetachPost, wire), (c) =>
          call(c.var, { kind: "detach", providerId: pathParam(c, "provider_id"), bindingId: c.var.body.binding_id }),
        ),
      },
    ),
  ],
};
