import type { Migration } from "../../kernel/schema";
import { all, int, intOrNull, one, run, text, textOrNull } from "../../kernel/sql";

/**
 * The MCP servers service's table (schema v7): downstream MCP servers whose tools the consumer
 * imported; v8 adds `relay`, the requests of the server's relayed to the MCP client
 * ({@link RELAY_SAMPLING} | {@link RELAY_ELICITATION}, 0: none).
 */
export const MCP_SERVER_MIGRATIONS: readonly Migration[] = [
  {
    version: 7,
    sql: `
  CREATE TABLE mcp_servers (
    name TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    prefix TEXT NOT NULL,
    auth TEXT,
    timeout_ms INTEGER NOT NULL,
    protocol_version TEXT NOT NULL,
    server_info TEXT NOT NULL,
    tools TEXT NOT NULL,
    registered_at INTEGER NOT NULL,
    imported_at INTEGER NOT NULL,
    list_changed_at INTEGER
  );
  CREATE INDEX mcp_servers_url ON mcp_servers (url);`,
  },
  { version: 8, sql: "ALTER TABLE mcp_servers ADD COLUMN relay INTEGER NOT NULL DEFAULT 0;" },
];

/** `relay` bit: `sampling/createMessage` is relayed. */
export const RELAY_SAMPLING = 1;
/** `relay` bit: `elicitation/create` is relayed. */
export const RELAY_ELICITATION = 2;

/** One registered server as stored; `auth`, `server_info` and `tools` are canonical JSON. */
export interface StoredMcpServer {
  readonly name: string;
  readonly url: string;
  readonly prefix: string;
  /** `{secret, prefix}` or `null`. */
  readonly auth: string | null;
  readonly timeoutMs: number;
  /** Bits {@link RELAY_SAMPLING} and {@link RELAY_ELICITATION}. */
  readonly relay: number;
  readonly protocolVersion: string;
  readonly serverInfo: string;
  /** `[{name, downstream}]`: the tools the last import defined. */
  readonly tools: string;
  readonly registeredAt: number;
  readonly importedAt: number;
  /** When the server last announced `notifications/tools/list_changed` since the last import; `null`: not since. */
  readonly listChangedAt: number | null;
}

function serverOf(row: Record<string, SqlStorageValue>): StoredMcpServer {
  return {
    name: text(row, "name"),
    url: text(row, "url"),
    prefix: text(row, "prefix"),
    auth: textOrNull(row, "auth"),
    timeoutMs: int(row, "timeout_ms"),
    relay: int(row, "relay"),
    protocolVersion: text(row, "protocol_version"),
    serverInfo: text(row, "server_info"),
    tools: text(row, "tools"),
    registeredAt: int(row, "registered_at"),
    importedAt: int(row, "imported_at"),
    listChangedAt: intOrNull(row, "list_changed_at"),
  };
}

/** All SQL of the MCP servers table; every call runs inside the caller's transaction. */
export class McpServerStore {
  constructor(private readonly sql: SqlStorage) {}

  get(name: string): StoredMcpServer | undefined {
    const row = one(this.sql, "SELECT * FROM mcp_servers WHERE name = ?", name);
    return row === undefined ? undefined : serverOf(row);
  }

  /** Every server, by name. */
  list(): StoredMcpServer[] {
    return all(this.sql, "SELECT * FROM mcp_servers ORDER BY name").map(serverOf);
  }

  count(): number {
    const row = one(this.sql, "SELECT COUNT(*) AS n FROM mcp_servers");
    return row === undefined ? 0 : int(row, "n");
  }

  /** Stores a server's registration or its re-import (which clears `list_changed_at`). */
  put(server: StoredMcpServer): void {
    run(
      this.sql,
      `INSERT INTO mcp_servers (name, url, prefix, auth, timeout_ms, relay, protocol_version, server_info, tools, registered_at, imported_at, list_changed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET protocol_version = excluded.protocol_version, server_info = excluded.server_info, tools = excluded.tools,
         imported_at = excluded.imported_at, list_changed_at = excluded.list_changed_at`,
      server.name,
      server.url,
      server.prefix,
      server.auth,
      server.timeoutMs,
      server.relay,
      server.protocolVersion,
      server.serverInfo,
      server.tools,
      server.registeredAt,
      server.importedAt,
      server.listChangedAt,
    );
  }

  /** The servers at `url` (several registrations may share one). */
  atUrl(url: string): StoredMcpServer[] {
    return all(this.sql, "SELECT * FROM mcp_servers WHERE url = ? ORDER BY name", url).map(serverOf);
  }

  /** Marks the servers at `url` not yet marked as having announced a changed tool list; answers their names. */
  markListChanged(url: string, now: number): string[] {
    const names = all(
      this.sql,
      "SELECT name FROM mcp_servers WHERE url = ? AND list_changed_at IS NULL ORDER BY name",
      url,
    ).map((row) => text(row, "name"));
    if (names.length > 0)
      run(this.sql, "UPDATE mcp_servers SET list_changed_at = ? WHERE url = ? AND list_changed_at IS NULL", now, url);
    return names;
  }

  delete(name: string): boolean {
    const had = this.get(name) !== undefined;
    run(this.sql, "DELETE FROM mcp_servers WHERE name = ?", name);
    return had;
  }
}
