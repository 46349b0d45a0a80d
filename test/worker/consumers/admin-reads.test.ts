/**
 * The admin's reads: GET /v1/consumers/{consumer}, the directory of consumers (GET /v1/consumers)
 * and a consumer's credentials (GET …/credentials), with their pages, cursors and refusals.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import type { DirectoryObject } from "../../../src/worker/features/directory/directory-object";
import { ADMIN_TOKEN, createConsumer, credential, gate, pinClock, send } from "../../kit";

const UNAUTHORIZED = {
  type: "https://toolgate.dev/problems/unauthenticated",
  title: "Unauthorized",
  status: 401,
  code: "UNAUTHENTICATED",
  detail: "Missing or invalid credential.",
};
const NO_CONSUMER = {
  type: "https://toolgate.dev/problems/not-found",
  title: "Not found",
  status: 404,
  code: "NOT_FOUND",
  detail: "No such consumer.",
};
const BAD_CURSOR = {
  type: "https://toolgate.dev/problems/invalid-cursor",
  title: "Cursor is not valid",
  status: 400,
  code: "INVALID_CURSOR",
  detail: "The cursor is not one this list answered.",
};

/** The documented default limits (docs/security.md), written out independently of src. */
const DEFAULT_LIMITS = {
  calls_per_second: 50,
  call_burst: 100,
  pending_approvals_per_subject: 20,
  pending_approvals_per_credential: 100,
  outbox_max_events: 1000,
  outbox_max_bytes: 1048576,
  outbox_batch_events: 100,
  sockets_per_credential: 4,
  socket_message_bytes: 65536,
  socket_messages_per_second: 50,
  page_items: 100,
  retention_seconds: 86400,
};

const directoryNamespace = (env as { DIRECTORY?: DurableObjectNamespace<DirectoryObject> }).DIRECTORY;

async function pinDirectory(seconds: number | undefined): Promise<void> {
  if (directoryNamespace === undefined) throw new Error("the worker tests bind DIRECTORY (wrangler.toml)");
  await runInDurableObject(directoryNamespace.get(directoryNamespace.idFromName("directory")), (instance) => {
    instance.clock.pinnedSeconds = seconds;
  });
}

async function json(res: Response): Promise<unknown> {
  return res.json();
}

afterAll(async () => {
  await pinDirectory(undefined);
});

describe("GET /v1/consumers/{consumer}", () => {
  it("answers the stored configuration with the limits' defaults applied", async () => {
    const issuer = {
      issuer: "https://id.example",
      audience: "gate",
      jwks: { keys: [{ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }] },
    };
    await send("PUT", "/v1/consumers/adm-reads-show", ADMIN_TOKEN, {
      tools: ["get_order"],
      approver_subjects: ["rev-2", "rev-1"],
      principal_tokens: issuer,
      limits: { page_items: 7 },
    });
    const res = await send("GET", "/v1/consumers/adm-reads-show", ADMIN_TOKEN);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const { storage_bytes: bytes, ...details } = (await json(res)) as { storage_bytes: number };
    // The object's SQLite size: whole pages, never empty.
    expect([bytes > 0, bytes % 4096]).toEqual([true, 0]);
    expect(details).toEqual({
      consumer: "adm-reads-show",
      tools: ["get_order"],
      approver_subjects: ["rev-1", "rev-2"],
      principal_tokens: {
        issuer: "https://id.example",
        audience: "gate",
        jwks: issuer.jwks,
        subject_claim: "sub",
        roles_claim: "roles",
        algorithms: ["RS256", "ES256", "EdDSA", "Ed25519"],
        max_skew_seconds: 60,
        jwks_cache_seconds: 600,
      },
      limits: { ...DEFAULT_LIMITS, page_items: 7 },
    });
  });

  it("answers 404 for a consumer never configured, and 401 without the admin secret", async () => {
    await createConsumer("adm-reads-kinds", [], ["rev-1"]);
    const approver = await credential("adm-reads-kinds", "approver", "rev-1");
    expect([await json(await send("GET", "/v1/consumers/adm-reads-never", ADMIN_TOKEN))]).toEqual([NO_CONSUMER]);
    for (const token of [null, "wrong-admin-token-0123456789", approver.secret]) {
      const res = await send("GET", "/v1/consumers/adm-reads-kinds", token);
      expect([res.status, await json(res)]).toEqual([401, UNAUTHORIZED]);
    }
  });
});

describe("GET /v1/consumers", () => {
  /** Every page of the directory at `limit` per page; answers the entries and the page sizes. */
  async function walk(
    limit: number,
  ): Promise<{ entries: Array<{ consumer: string; created_at: number }>; sizes: number[] }> {
    const entries: Array<{ consumer: string; created_at: number }> = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await send(
        "GET",
        `/v1/consumers?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`,
        ADMIN_TOKEN,
      );
      expect(res.status).toBe(200);
      const page = (await res.json()) as {
        consumers: Array<{ consumer: string; created_at: number }>;
        next_cursor: string | null;
      };
      entries.push(...page.consumers);
      sizes.push(page.consumers.length);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return { entries, sizes };
  }

  it("lists every configured consumer once, in name order, with when it was first configured", async () => {
    await pinDirectory(1_800_000_000);
    await createConsumer("adm-reads-dir-b", [], []);
    await pinDirectory(1_800_000_100);
    await createConsumer("adm-reads-dir-a", [], []);
    await createConsumer("adm-reads-dir-c", [], []);
    // Configured again later: the first time is kept.
    await pinDirectory(1_800_000_200);
    await createConsumer("adm-reads-dir-b", ["get_order"], []);
    // Refused by the consumer's object: never recorded.
    expect(
      (
        await send("PUT", "/v1/consumers/adm-reads-dir-refused", ADMIN_TOKEN, {
          tools: ["no_such_tool"],
          approver_subjects: [],
        })
      ).status,
    ).toBe(422);

    const { entries, sizes } = await walk(2);
    const names = entries.map((e) => e.consumer);
    expect(names).toEqual([...new Set(names)].sort());
    expect(entries.filter((e) => e.consumer.startsWith("adm-reads-dir-"))).toEqual([
      { consumer: "adm-reads-dir-a", created_at: 1_800_000_100 },
      { consumer: "adm-reads-dir-b", created_at: 1_800_000_000 },
      { consumer: "adm-reads-dir-c", created_at: 1_800_000_100 },
    ]);
    expect(sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
    // One page of everything answers the same entries.
    expect((await walk(500)).entries).toEqual(entries);
  });

  it("refuses a missing or wrong secret, an edited cursor and an out-of-range limit", async () => {
    for (const token of [null, "wrong-admin-token-0123456789"]) {
      const res = await send("GET", "/v1/consumers", token);
      expect([res.status, await json(res)]).toEqual([401, UNAUTHORIZED]);
    }
    // A cursor of a name the directory does not hold, and one that is not base64url at all.
    const absent = btoa("adm-reads-nobody").replaceAll("=", "");
    for (const cursor of [absent, "%%%", "x".repeat(300)]) {
      const res = await send("GET", `/v1/consumers?cursor=${cursor}`, ADMIN_TOKEN);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string };
      expect(body.code).toBe(cursor.length > 256 ? "INVALID_REQUEST" : "INVALID_CURSOR");
    }
    const bad = await send("GET", `/v1/consumers?cursor=${absent}`, ADMIN_TOKEN);
    expect(await json(bad)).toEqual(BAD_CURSOR);
    for (const limit of ["0", "501", "x"])
      expect((await send("GET", `/v1/consumers?limit=${limit}`, ADMIN_TOKEN)).status).toBe(400);
  });
});

describe("GET /v1/consumers/{consumer}/credentials", () => {
  it("lists credentials in issue order, page by page, without a secret, tag or hash", async () => {
    await send("PUT", "/v1/consumers/adm-reads-creds", ADMIN_TOKEN, {
      tools: ["get_order"],
      approver_subjects: ["rev-1"],
      limits: { page_items: 2 },
    });
    await pinClock("adm-reads-creds", 1_800_000_000);
    const agent = await credential("adm-reads-creds", "agent", "user-1", {
      roles: ["support", "admin"],
      tools: ["get_order"],
    });
    await pinClock("adm-reads-creds", 1_800_000_010);
    const approver = await credential("adm-reads-creds", "approver", "rev-1");
    const auditor = await credential("adm-reads-creds", "auditor", undefined, { expires_at: 1_900_000_000 });
    await pinClock("adm-reads-creds", 1_800_000_020);
    expect((await send("DELETE", `/v1/consumers/adm-reads-creds/credentials/${approver.id}`, ADMIN_TOKEN)).status).toBe(
      204,
    );

    const first = await send("GET", "/v1/consumers/adm-reads-creds/credentials", ADMIN_TOKEN);
    const firstText = await first.text();
    const firstPage = JSON.parse(firstText) as { credentials: unknown[]; next_cursor: string | null };
    expect(firstPage.credentials).toEqual([
      {
        credential_id: agent.id,
        kind: "agent",
        subject_id: "user-1",
        principal: "subject",
        roles: ["admin", "support"],
        tools: ["get_order"],
        created_at: 1_800_000_000,
        expires_at: null,
        revoked_at: null,
      },
      {
        credential_id: approver.id,
        kind: "approver",
        subject_id: "rev-1",
        principal: null,
        roles: [],
        tools: null,
        created_at: 1_800_000_010,
        expires_at: null,
        revoked_at: 1_800_000_020,
      },
    ]);
    expect(typeof firstPage.next_cursor).toBe("string");
    const second = await send(
      "GET",
      `/v1/consumers/adm-reads-creds/credentials?cursor=${firstPage.next_cursor}`,
      ADMIN_TOKEN,
    );
    const secondText = await second.text();
    expect(JSON.parse(secondText)).toEqual({
      credentials: [
        {
          credential_id: auditor.id,
          kind: "auditor",
          subject_id: null,
          principal: null,
          roles: [],
          tools: null,
          created_at: 1_800_000_010,
          expires_at: 1_900_000_000,
          revoked_at: null,
        },
      ],
      next_cursor: null,
    });
    for (const text of [firstText, secondText]) {
      for (const secret of [agent.secret, approver.secret, auditor.secret])
        expect(text.includes(secret.slice(-30))).toBe(false);
      expect(text.includes("tg_")).toBe(false);
    }
  });

  it("refuses another consumer's cursor, an edited one, a credential and a missing consumer", async () => {
    await send("PUT", "/v1/consumers/adm-reads-creds-other", ADMIN_TOKEN, {
      tools: [],
      approver_subjects: [],
      limits: { page_items: 1 },
    });
    await credential("adm-reads-creds-other", "auditor");
    const auditor = await credential("adm-reads-creds-other", "auditor");
    const page = (await (await send("GET", "/v1/consumers/adm-reads-creds-other/credentials", ADMIN_TOKEN)).json()) as {
      next_cursor: string;
    };
    for (const cursor of [page.next_cursor, `${page.next_cursor}x`, "Y3JlZF8w"]) {
      const res = await send("GET", `/v1/consumers/adm-reads-creds/credentials?cursor=${cursor}`, ADMIN_TOKEN);
      expect([res.status, await json(res)]).toEqual([400, BAD_CURSOR]);
    }
    const asAuditor = await send("GET", "/v1/consumers/adm-reads-creds-other/credentials", auditor.secret);
    expect([asAuditor.status, await json(asAuditor)]).toEqual([401, UNAUTHORIZED]);
    expect(await json(await send("GET", "/v1/consumers/adm-reads-never/credentials", ADMIN_TOKEN))).toEqual(
      NO_CONSUMER,
    );
  });
});

describe("the OpenAPI document", () => {
  it("documents the three reads as admin operations", async () => {
    const doc = (await (await gate("/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { "x-toolgate-credential"?: string }>>;
    };
    const label = (path: string) => doc.paths[path]?.get?.["x-toolgate-credential"];
    expect([
      label("/v1/consumers"),
      label("/v1/consumers/{consumer}"),
      label("/v1/consumers/{consumer}/credentials"),
    ]).toEqual(["admin", "admin", "admin"]);
  });
});
