import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { McpAuth } from "./tool-definition";
import { DOCS } from "./docs";

/** A registered MCP server's name (the path segment of `…/mcp-servers/{name}`). */
export const McpServerName = z.deferred(() => z.string().check(z.regex(/^[a-z][a-z0-9_-]{0,31}$/)));

/**
 * Which requests of the server's the gate relays to the MCP client in the middle of a call (both
 * off by default): `sampling/createMessage` and `elicitation/create`, each only when the client
 * declared the capability (docs/mcp.md, "Sampling and elicitation (opt-in)").
 */
export const McpRelaySetting = z.deferred(() =>
  z
    .strictObject({
      sampling: z._default(z.boolean(), false).check(
        z.meta({
          description: DOCS
            ? "Relay `sampling/createMessage`: the server may make the client's model generate text."
            : "",
        }),
      ),
      elicitation: z._default(z.boolean(), false).check(
        z.meta({
          description: DOCS ? "Relay `elicitation/create`: the server may ask the client's user questions." : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "McpRelaySetting" }),
);

/** `POST /v1/consumers/{consumer}/mcp-servers`: a downstream MCP server whose tools the gate imports. */
export const McpServerRegistration = z.deferred(() =>
  z
    .strictObject({
      name: McpServerName,
      url: z.url().check(
        z.maxLength(2048),
        z.meta({
          description: DOCS ? "The server's Streamable HTTP endpoint (https; loopback http only under npm start)." : "",
        }),
      ),
      auth: z.optional(McpAuth).check(
        z.meta({
          description: DOCS ? "A consumer secret sent as `Authorization` on every request to the server." : "",
        }),
      ),
      prefix: z
        ._default(z.string().check(z.regex(/^([a-zA-Z][a-zA-Z0-9_-]{0,31})?$/)), "")
        .check(
          z.meta({ description: DOCS ? "Put before each downstream tool's name to make the gate's tool name." : "" }),
        ),
      timeout_ms: z._default(z.int().check(z.gte(100), z.lte(30_000)), 5_000).check(
        z.meta({
          description: DOCS ? "Each imported tool's `timeout_ms`: the deadline of one call's whole exchange." : "",
        }),
      ),
      relay: z._default(McpRelaySetting, { sampling: false, elicitation: false }),
    })
    .register(httpSchemas, { id: "McpServerRegistration" }),
);

/** A registered server as the admin sees it. */
export const McpServerView = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      url: z.string(),
      prefix: z.string(),
      auth: z.nullable(z.strictObject({ secret: z.string(), prefix: z.string() })),
      timeout_ms: z.int(),
      relay: z.strictObject({ sampling: z.boolean(), elicitation: z.boolean() }),
      protocol_version: z.string(),
      server_info: z.record(z.string(), z.unknown()),
      tools: z.array(z.strictObject({ name: z.string(), downstream: z.string() })),
      registered_at: z.int(),
      imported_at: z.int(),
      stale: z.boolean().check(
        z.meta({
          description: DOCS ? "The server announced `notifications/tools/list_changed` since the last import." : "",
        }),
      ),
      list_changed_at: z.nullable(z.int()),
    })
    .register(httpSchemas, { id: "McpServer" }),
);

/** What an import (registration or re-import) did. */
export const McpImportResult = z.deferred(() =>
  z
    .strictObject({
      server: McpServerView,
      imported: z.array(
        z.strictObject({
          name: z.string(),
          downstream: z.string(),
          risk: z.enum(["read", "write"]),
          revision: z
            .int()
            .check(z.meta({ description: DOCS ? "The definition's version: unchanged tools keep theirs." : "" })),
          change: z.enum(["new", "updated", "unchanged"]),
        }),
      ),
      refused: z.array(z.strictObject({ downstream: z.string(), reason: z.string() })),
      gone: z.array(z.strictObject({ name: z.string(), downstream: z.string() })).check(
        z.meta({
          description: DOCS ? "Tools of the last import the server no longer lists (their definitions stay)." : "",
        }),
      ),
      truncated: z
        .boolean()
        .check(z.meta({ description: DOCS ? "The server lists more tools than one import reads." : "" })),
    })
    .register(httpSchemas, { id: "McpImportResult" }),
);

/** Parsed registration. */
export type McpServerRegistration = z.output<typeof McpServerRegistration>;
/** A server's relay setting. */
export type McpRelaySetting = z.output<typeof McpRelaySetting>;

/** `GET …/mcp-servers`: one page of servers. */
export const McpServerList = z.deferred(() =>
  z
    .strictObject({
      servers: z.array(McpServerView),
      next_cursor: z
        .nullable(z.string())
        .check(z.describe(DOCS ? "Where the next page starts; null on the last page." : "")),
    })
    .register(httpSchemas, { id: "McpServerList" }),
);

/** `DELETE …/mcp-servers/{name}`: the server is gone and its imported tools are disabled. */
export const McpServerRemoved = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      disabled: z.array(z.string()).check(z.describe(DOCS ? "The gate's tool names that were disabled." : "")),
    })
    .register(httpSchemas, { id: "McpServerRemoved" }),
);
