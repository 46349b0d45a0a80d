import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBytes } from "../../src/client";
import { AgentClient } from "../../src/client/agent";
import { ApproverClient } from "../../src/client/approver";
import { type DevServer, startDev } from "../blackbox/wrangler-dev";
import { launchChromium } from "./support/chromium";
import { type PageServer, servePage } from "./support/page-server";

const ADMIN = "browser-test-admin-token-0123456789";
const CONSUMER = "browser-demo";
const PROVIDER = "browser-1";

let dev: DevServer;
let persist: string;
let server: PageServer;
let browser: Browser;

async function admin(method: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "toolgate-provider-"));
  [dev, server, browser] = await Promise.all([
    startDev(persist, ADMIN),
    servePage(fileURLToPath(new URL("./pages/provider.ts", import.meta.url))),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await dev?.kill();
  if (persist !== undefined) rmSync(persist, { recursive: true, force: true });
});

describe("a browser provider in real Chromium against wrangler dev", () => {
  it("attaches over a WebSocket, answers the effect, and the agent drains the matching completion", async () => {
    await admin("PUT", "", { tools: [], approver_subjects: [] });
    const agent = (await admin("POST", "/credentials", { kind: "agent", subject_id: "agent-1" })) as { secret: string };
    const provider = (await admin("POST", "/credentials", { kind: "provider", subject_id: PROVIDER })) as {
      secret: string;
    };
    const descriptor = {
      id: PROVIDER,
      owner: { consumer: CONSUMER },
      capabilities: [{ id: "browser.page.snapshot", class: "browser", description: "Page title and text length" }],
    };
    expect(await admin("POST", "/capability/providers", { descriptor })).toEqual({ provider_id: PROVIDER });
    expect(await admin("PUT", "/capability/instances/1", { generation: 1, state: "active" })).toEqual({
      instance_id: 1,
      generation: 1,
      state: "active",
    });

    // The admin secret may act on the authority lane (the same client an approver uses).
    const authority = new ApproverClient({ baseUrl: dev.base, consumer: CONSUMER, token: ADMIN });
    const key = {
      consumer_id: CONSUMER,
      actor_id: "agent-1",
      instance_id: 1,
      generation: 1,
      provider_id: PROVIDER,
      capability_id: "browser.page.snapshot",
      resource_scope_id: "tab:active",
    };
    expect(await authority.authority({ "set-grant": { grant: { key, mode: "allow" } } })).toEqual({
      ok: true,
      value: { sequence: 1, outcome: "grant-set" },
    });

    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => "toolgateAttach" in globalThis);
    const binding = await page.evaluate(
      (config) =>
        (globalThis as unknown as { toolgateAttach: (c: typeof config) => Promise<string> }).toolgateAttach(config),
      { baseUrl: dev.base, consumer: CONSUMER, token: provider.secret, providerId: PROVIDER },
    );
    expect(binding).toBe("1");

    const host = new AgentClient({ baseUrl: dev.base, consumer: CONSUMER, token: agent.secret });
    const deadline = Date.now() + 60_000;
    const request = {
      local_id: 1,
      instance_id: 1,
      generation: 1,
      provider_id: PROVIDER,
      capability_id: "browser.page.snapshot",
      resource_scope_id: "tab:active",
      approval_summary: "Read the active page",
      deadline_tick: deadline,
      payload: jsonBytes({}),
    };
    const decided = await host.requestCapability("agent-1", request);
    expect(decided.ok && [decided.value.decision, decided.value.accepted_sequence]).toEqual(["allow", 1]);

    const requestKey = { consumer_id: CONSUMER, actor_id: "agent-1", local_id: 1 };
    await page.waitForFunction(
      () => (globalThis as unknown as { toolgateOutcomes: () => string }).toolgateOutcomes() !== "[]",
      undefined,
      { timeout: 20_000 },
    );
    const outcomes = await page.evaluate(() =>
      (globalThis as unknown as { toolgateOutcomes: () => string }).toolgateOutcomes(),
    );
    expect(JSON.parse(outcomes)).toEqual([
      { Ok: { "observation-applied": { operation_id: 1, request_key: requestKey } } },
    ]);

    const result = jsonBytes({ title: "Provider test page", text_length: "Hello from a real browser.".length });
    const drained = await host.drainCompletions();
    expect(drained).toEqual({
      ok: true,
      value: {
        completions: [
          {
            sequence: 1,
            accepted_sequence: 1,
            operation_id: 1,
            request_key: requestKey,
            instance_id: 1,
            generation: 1,
            provider_id: PROVIDER,
            outcome: {
              succeeded: {
                result: {
                  metadata: {
                    byte_len: result.length,
                    media_type: "application/json",
                    truncated: false,
                    redacted_summary: null,
                  },
                  delivery: { inline: { bytes: result } },
                },
              },
            },
          },
        ],
        dropped_since_last_drain: 0,
        total_dropped: 0,
        next_sequence: 2,
        sequence_exhausted: false,
      },
    });
    expect(new TextDecoder().decode(new Uint8Array(result))).toBe('{"title":"Provider test page","text_length":26}');

    // A second page cannot attach the same provider while the first holds the binding.
    const second = await browser.newPage();
    await second.goto(server.url);
    await second.waitForFunction(() => "toolgateAttach" in globalThis);
    const refused = await second.evaluate(
      (config) =>
        (globalThis as unknown as { toolgateAttach: (c: typeof config) => Promise<string> }).toolgateAttach(config),
      { baseUrl: dev.base, consumer: CONSUMER, token: provider.secret, providerId: PROVIDER },
    );
    expect(refused).toBe("CONNECT_REFUSED");
    await second.close();
    await page.close();
  });
});
