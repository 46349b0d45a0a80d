/**
 * The schema a new consumer object creates is pinned: every table, index and trigger in
 * `sqlite_master`, and the stored version. Stored formats are an API (object/migrations.ts), so
 * a change to how the migrations are gathered must leave this dump byte for byte the same.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION, storedSchemaVersion } from "../../../src/worker/object/migrations";
import schema from "../fixtures/schema-v17.json";

describe("the consumer object's schema", () => {
  it("is version 17, exactly as pinned", async () => {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName("migrations-schema"));
    const dump = await runInDurableObject(stub, (_instance, state) => ({
      version: storedSchemaVersion(state.storage.sql),
      objects: state.storage.sql
        .exec<{ type: string; name: string; tbl_name: string; sql: string | null }>(
          "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .toArray(),
    }));
    expect(SCHEMA_VERSION).toBe(17);
    expect(dump.version).toBe(17);
    expect(dump.objects).toEqual(schema);
  });
});
