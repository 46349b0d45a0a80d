/**
 * The admin's read routes (admin secret only): one consumer's configuration, the directory of
 * consumers, a consumer's credentials. None answers a secret.
 * @module
 */
import {
  ConsumerDetails,
  ConsumerList,
  ConsumerListQuery,
  CredentialList,
  CredentialListQuery,
  DEFAULT_DIRECTORY_PAGE,
  MAX_DIRECTORY_PAGE,
} from "../../../contracts/admin-reads";
import { isAdmin } from "../../http/auth";
import { describeIssues } from "../../http/body";
import { DIRECTORY_NAME, type DirectoryObject } from "../directory/directory-object";
import type { Env } from "../../env";
import { problem, problemResponse, UNAUTHENTICATED } from "../../http/problem";
import { adminCall, respond } from "../../http/respond";
import { handlers, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

function directoryOf(env: Env): DurableObjectStub<DirectoryObject> | null {
  return env.DIRECTORY === undefined ? null : env.DIRECTORY.get(env.DIRECTORY.idFromName(DIRECTORY_NAME));
}

/**
 * Records a configured consumer in the directory; called only after the consumer's object
 * accepted the configuration, and on every such PUT (idempotent), so a retried PUT heals a
 * recording that failed. No directory bound: nothing is recorded.
 */
export async function recordInDirectory(env: Env, consumer: string): Promise<void> {
  await directoryOf(env)?.record(consumer);
}

const cursor = {
  description: DOCS ? "The `next_cursor` of the previous page (opaque; anything else is 400 INVALID_CURSOR)." : "",
  schema: { type: "string", maxLength: 256 },
};

/** Read routes of the admin service. */
export const adminReadRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/v1/consumers",
      summary: DOCS
        ? "The directory of consumers: names in code-point order with when each was first configured, one page at a time."
        : "",
      operation: "listConsumers",
      query: {
        cursor,
        limit: {
          description: DOCS ? `Page size, 1..${MAX_DIRECTORY_PAGE} (default ${DEFAULT_DIRECTORY_PAGE}).` : "",
          schema: { type: "integer", minimum: 1, maximum: MAX_DIRECTORY_PAGE },
        },
      },
      response: {
        status: 200,
        schema: ConsumerList,
        description: DOCS ? "One page; `next_cursor` is null on the last page." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
      handlers: handlers(async (c) => {
        if (!isAdmin(c)) return problemResponse(UNAUTHENTICATED);
        const query = ConsumerListQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        const directory = directoryOf(c.env);
        if (directory === null)
          return problemResponse(problem("NOT_FOUND", "This deployment binds no DIRECTORY: consumers are not listed."));
        return respond(await directory.page(query.data.cursor ?? null, query.data.limit ?? DEFAULT_DIRECTORY_PAGE));
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}",
      summary: DOCS
        ? "A consumer's configuration: enabled tools, approvers, token issuer, limits (defaults applied), and its object's storage size. Never a secret."
        : "",
      operation: "getConsumer",
      auth: "admin-secret",
      response: { status: 200, schema: ConsumerDetails, description: DOCS ? "The stored configuration." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers((c) => adminCall(c.var, { kind: "getConsumer" })),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/credentials",
      summary: DOCS
        ? "The consumer's credentials in issue order, at most the consumer's page_items per page: binding, creation, expiry, revocation; never a secret or tag."
        : "",
      operation: "listCredentials",
      auth: "admin-secret",
      query: { cursor },
      response: {
        status: 200,
        schema: CredentialList,
        description: DOCS ? "One page; `next_cursor` is null on the last page." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
      handlers: handlers(async (c) => {
        const query = CredentialListQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        return adminCall(c.var, { kind: "listCredentials", cursor: query.data.cursor ?? null });
      }),
    },
  ],
};
