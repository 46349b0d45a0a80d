/**
 * The Manifest V3 extension in examples/browser-extension, built by `npm run build:extension`
 * and loaded as it is into real Chromium, attached to the gate as `npm start` serves it: the real
 * `npm start`'s command (wrangler dev behind the strict HTTP/1.1 local edge, with the demo
 * service and consumers) on a free port, with its own state folder and secrets file. The
 * extension's provider socket is upgraded through the edge, as it would be through Cloudflare's.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBytes, type CompletionBatch } from "../../src/client";
import { AgentClient } from "../../src/client/agent";
import { ApproverClient } from "../../src/client/approver";
import { freePort } from "../blackbox/wrangler-dev";
import { type ExtensionBrowser, launchExtension, serveHtml } from "./support/extension";
import { type NpmStart, startNpmStart } from "./support/npm-start";
import type { PageServer } from "./support/page-server";

const ROOT = resolve(__dirname, "..", "..");
const EXTENSION = join(ROOT, "examples", "browser-extension");
const ADMIN = "extension-test-admin-token-0123456789";
const CONSUMER = "extension-demo";
const PROVIDER = "browser-profile-1";
const SNAPSHOT = "browser.page.snapshot";

/** A page whose visible text leaves out what is hidden, scripts and markup. */
const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Field notes: herons</title></head>
<body><h1>Field notes</h1><p>The heron waits at the edge of the reeds.</p>
<p style="display:none">hidden remark</p><script>const unseen = "script text";</script>
<p>It strikes once — and eats.</p></body></html>`;
/** 20,000 characters of visible text: more than one result holds. */
const LONG_TEXT = "abcdefghij".repeat(2_000);
const LONG = `<!doctype html><meta charset="utf-8"><title>A long page</title><p>${LONG_TEXT}</p>`;

let gate: NpmStart;
let port: number;
/** A scratch folder: npm start's state (`state/`) and secrets file (`dev.vars`). */
let scratch: string;
let pages: PageServer;
let browser: ExtensionBrowser;
let options: Page;
let agent: AgentClient;
let agentSecret: string;
let providerSecret: string;
let localId = 0;

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${gate.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The text of an options page element once `accept` holds for it (polled up to `ms`). */
async function settledText(selector: string, accept: (line: string) => boolean, ms = 30_000): Promise<string> {
  const deadline = Date.now() + ms;
  let line = "";
  while (Date.now() < deadline) {
    line = (await options.textContent(selector)) ?? "";
    if (accept(line)) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${selector} stayed ${JSON.stringify(line)}`);
}

/** The options page's status line once `accept` holds for it (polled up to `ms`). */
const statusLine = (accept: (line: string) => boolean, ms?: number): Promise<string> =>
  settledText("#status", accept, ms);

/** The options page's message after a click on Save: the page writes it once its storage calls answer. */
const savedMessage = (accept: (line: string) => boolean): Promise<string> => settledText("#message", accept);

/** Starts recording the status lines the service worker publishes; answers a reader of them. */
async function watchStatus(): Promise<() => Promise<string[]>> {
  type Watcher = {
    chrome: {
      storage: { onChanged: { addListener(l: (c: Record<string, { newValue?: { detail: string } }>) => void): void } };
    };
    statusLines: string[];
  };
  await options.evaluate(() => {
    const page = globalThis as unknown as Watcher;
    page.statusLines = [];
    page.chrome.storage.onChanged.addListener((changes) => {
      const detail = changes.status?.newValue?.detail;
      if (detail !== undefined) page.statusLines.push(detail);
    });
  });
  return () => options.evaluate(() => (globalThis as unknown as Watcher).statusLines);
}

/** Asks for a snapshot of the active tab as agent-1 and answers the one completion it ends with. */
async function snapshotRequest(): Promise<CompletionBatch["completions"][number]> {
  localId += 1;
  const request = {
    local_id: localId,
    instance_id: 1,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: "tab:active",
    approval_summary: "Read the active tab",
    deadline_tick: Date.now() + 60_000,
    payload: jsonBytes({}),
  };
  const decided = await agent.requestCapability("agent-1", request);
  expect(decided.ok && decided.value.decision).toBe("allow");
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const drained = await agent.drainCompletions();
    if (!drained.ok) throw new Error(drained.problem.detail);
    const [completion, ...more] = drained.value.completions;
    expect(more).toEqual([]);
    if (completion !== undefined) return completion;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no completion for request ${localId}`);
}

/** The result bytes of a succeeded completion, as text. */
function resultText(completion: CompletionBatch["completions"][number]): string {
  const outcome = completion.outcome as { succeeded?: { result: { delivery: { inline?: { bytes: number[] } } } } };
  return new TextDecoder().decode(new Uint8Array(outcome.succeeded?.result.delivery.inline?.bytes ?? []));
}

/** Opens `path` of the page server in a new tab and makes it the active one. */
async function openTab(path: string): Promise<Page> {
  const tab = await browser.context.newPage();
  await tab.goto(`${pages.url}${path}`);
  await tab.bringToFront();
  return tab;
}

/** `npm start` on the test's port, state folder and secrets file (the same on a restart). */
function startGate(): Promise<NpmStart> {
  return startNpmStart({ port, stateDir: join(scratch, "state"), devVars: join(scratch, "dev.vars") });
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, "tools", "run.js"), join(ROOT, "tools", "build-extension.ts")], {
    cwd: ROOT,
    stdio: "pipe",
  });
  scratch = mkdtempSync(join(tmpdir(), "toolgate-extension-"));
  // The admin token is the test's; start.js adds the keys and its settings to the file.
  writeFileSync(join(scratch, "dev.vars"), `TOOLGATE_ADMIN_TOKEN=${ADMIN}\n`, { mode: 0o600 });
  port = await freePort();
  // Each part is kept as soon as it runs, so afterAll stops it even when another failed to start.
  const started = await Promise.allSettled([
    startGate().then((d) => (gate = d)),
    serveHtml({ "/article": ARTICLE, "/long": LONG }).then((p) => (pages = p)),
    launchExtension(EXTENSION).then((b) => (browser = b)),
  ]);
  for (const part of started) if (part.status === "rejected") throw part.reason;

  await admin("PUT", "", { tools: [], approver_subjects: [] });
  agentSecret = ((await admin("POST", "/credentials", { kind: "agent", subject_id: "agent-1" })) as { secret: string })
    .secret;
  agent = new AgentClient({ baseUrl: gate.base, consumer: CONSUMER, token: agentSecret });
  providerSecret = (
    (await admin("POST", "/credentials", { kind: "provider", subject_id: PROVIDER })) as { secret: string }
  ).secret;
  const descriptor = {
    id: PROVIDER,
    owner: { consumer: CONSUMER },
    capabilities: [
      { id: SNAPSHOT, class: "browser", description: "Title, address and visible text of the active tab" },
    ],
  };
  await admin("POST", "/capability/providers", { descriptor });
  await admin("PUT", "/capability/instances/1", { generation: 1, state: "active" });
  const authority = new ApproverClient({ baseUrl: gate.base, consumer: CONSUMER, token: ADMIN });
  const key = {
    consumer_id: CONSUMER,
    actor_id: "agent-1",
    instance_id: 1,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: "tab:active",
  };
  expect(await authority.authority({ "set-grant": { grant: { key, mode: "allow" } } })).toEqual({
    ok: true,
    value: { sequence: 1, outcome: "grant-set" },
  });
});

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await gate?.stop();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("the Manifest V3 extension in Chromium against npm start's gate", () => {
  it("loads as it is: its service worker runs from dist/ and reports that it needs settings", async () => {
    expect(browser.workerUrl).toBe(`chrome-extension://${browser.extensionId}/dist/service-worker.js`);
    options = await browser.context.newPage();
    await options.goto(`chrome-extension://${browser.extensionId}/options.html`);
    expect(await statusLine((line) => line !== "…" && line !== "not started yet")).toBe(
      "not configured: set the gate, consumer, provider and credential",
    );
  });

  it("takes its settings on the options page and attaches as the profile's one provider", async () => {
    await options.fill("#gate-url", `${gate.base}/v1`);
    await options.click("#save");
    expect(await savedMessage((line) => line !== "")).toBe(
      "Gate URL: the gate's origin, such as https://gate.example or http://127.0.0.1:8787",
    );
    expect(await options.getAttribute("#gate-url", "aria-invalid")).toBe("true");
    await options.fill("#gate-url", `${gate.base}/`);
    await options.fill("#consumer", CONSUMER);
    await options.fill("#provider-id", PROVIDER);
    await options.fill("#credential", providerSecret);
    await options.click("#save");
    expect(await savedMessage((line) => line.startsWith("Saved"))).toBe("Saved.");
    expect(await statusLine((line) => line.startsWith("attached"))).toBe(
      `attached as ${PROVIDER} at ${gate.base} (consumer ${CONSUMER}), binding 1`,
    );
    // The credential is stored, never shown again.
    expect(await options.inputValue("#credential")).toBe("");
    expect(await options.getAttribute("#credential", "placeholder")).toBe("saved: leave empty to keep it");
    expect(await options.content()).not.toContain(providerSecret);
  });

  it("answers an agent's browser.page.snapshot with the page in the active tab", async () => {
    const tab = await openTab("article");
    const completion = await snapshotRequest();
    const text = resultText(completion);
    expect(JSON.parse(text)).toEqual({
      title: "Field notes: herons",
      url: `${pages.url}article`,
      text: "Field notes\n\nThe heron waits at the edge of the reeds.\n\nIt strikes once — and eats.",
      text_length: 83,
      truncated: false,
    });
    const bytes = Array.from(new TextEncoder().encode(text));
    expect(completion).toEqual({
      sequence: 1,
      accepted_sequence: 1,
      operation_id: 1,
      request_key: { consumer_id: CONSUMER, actor_id: "agent-1", local_id: 1 },
      instance_id: 1,
      generation: 1,
      provider_id: PROVIDER,
      outcome: {
        succeeded: {
          result: {
            metadata: {
              byte_len: bytes.length,
              media_type: "application/json",
              truncated: false,
              redacted_summary: null,
            },
            delivery: { inline: { bytes } },
          },
        },
      },
    });
    await tab.close();
  });

  it("reads whichever tab is active, bounded to 12 KiB, through the same one attachment", async () => {
    const article = await openTab("article");
    const long = await openTab("long");
    const completion = await snapshotRequest();
    const result = JSON.parse(resultText(completion)) as {
      title: string;
      url: string;
      text: string;
      text_length: number;
      truncated: boolean;
    };
    // ASCII text fills the result to exactly 12 KiB: what the other members leave.
    const room =
      12 * 1024 -
      JSON.stringify({ title: "A long page", url: `${pages.url}long`, text: "", text_length: 20_000, truncated: true })
        .length;
    expect(result).toEqual({
      title: "A long page",
      url: `${pages.url}long`,
      text: LONG_TEXT.slice(0, room),
      text_length: 20_000,
      truncated: true,
    });
    const outcome = completion.outcome as { succeeded: { result: { metadata: unknown } } };
    expect(outcome.succeeded.result.metadata).toEqual({
      byte_len: 12 * 1024,
      media_type: "application/json",
      truncated: true,
      redacted_summary: null,
    });

    await article.bringToFront();
    expect(JSON.parse(resultText(await snapshotRequest())).title).toBe("Field notes: herons");
    // The options page (an extension page) cannot be read: a failed observation that names no address.
    await options.bringToFront();
    const message =
      "the active tab cannot be read: click the extension's button on it, or allow its site on the options page";
    expect((await snapshotRequest()).outcome).toEqual({
      failed: { failure: { kind: "unavailable", redacted_message: message } },
    });
    // Four tabs have been open (options, two pages, one closed): the gate saw one provider,
    // attached once. Its lane's sequence counts that attach and the four observations since.
    const runtime = (await admin("GET", "/capability/snapshot")) as { provider_runtime: unknown };
    expect(runtime.provider_runtime).toEqual({
      last_sequence: 5,
      sequence_exhausted: false,
      bindings: [{ binding_id: 1, provider_id: PROVIDER }],
    });
    await long.close();
    await article.close();
  });

  it("attaches again, with backoff, after the gate restarts", async () => {
    const lines = await watchStatus();
    // npm start crashes: start.js, wrangler and workerd are killed at once; it is started again.
    await gate.kill();
    await statusLine((line) => !line.startsWith("attached"));
    gate = await startGate();
    const attached = `attached as ${PROVIDER} at ${gate.base} (consumer ${CONSUMER}), binding 7`;
    await statusLine((line) => line.startsWith("attached"), 90_000);
    const seen = await lines();
    // The socket drops; each attempt while the gate is down fails and waits longer, up to 30 s.
    expect(seen[0]).toBe("the socket closed; attaching again in 1 s");
    const failed = /^not attached: the socket closed before attaching \(\d+\); attaching again in (\d+) s$/;
    const between = seen
      .slice(1, -1)
      .filter((line) => line !== `attaching as ${PROVIDER} at ${gate.base} (consumer ${CONSUMER})`);
    // Every line between is a failed attempt and its wait.
    expect(between.filter((line) => !failed.test(line))).toEqual([]);
    const waits = between.map((line) => Number(failed.exec(line)?.[1]));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(Math.max(...waits)).toBeLessThanOrEqual(30);
    // The restarted gate detached binding 1 (sequence 6, no socket held it), then the extension attached.
    expect(seen.at(-1)).toBe(attached);
    const tab = await openTab("article");
    expect(JSON.parse(resultText(await snapshotRequest())).text_length).toBe(83);
    const runtime = (await admin("GET", "/capability/snapshot")) as { provider_runtime: unknown };
    expect(runtime.provider_runtime).toEqual({
      last_sequence: 8,
      sequence_exhausted: false,
      bindings: [{ binding_id: 7, provider_id: PROVIDER }],
    });
    await tab.close();
  });

  it("wakes from its alarm and attaches again when the browser stops its service worker", async () => {
    const cdp = await browser.context.newCDPSession(options);
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    // The stopped worker's socket closes and the gate detaches binding 7 (sequence 9); the
    // periodic alarm wakes the worker, which attaches as binding 10 (later only if an attempt
    // raced the detach and was refused).
    const line = await statusLine((l) => l.startsWith("attached") && !l.endsWith("binding 7"), 60_000);
    const binding = Number(/binding (\d+)$/.exec(line)?.[1]);
    expect(line).toBe(`attached as ${PROVIDER} at ${gate.base} (consumer ${CONSUMER}), binding ${binding}`);
    expect(binding).toBeGreaterThanOrEqual(10);
    const runtime = (await admin("GET", "/capability/snapshot")) as { provider_runtime: unknown };
    expect(runtime.provider_runtime).toEqual({
      last_sequence: binding,
      sequence_exhausted: false,
      bindings: [{ binding_id: binding, provider_id: PROVIDER }],
    });
  });

  it("answers an MCP client's browser_page_snapshot tool call (the official SDK client) with the active tab", async () => {
    const tab = await openTab("article");
    const client = new Client({ name: "extension-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gate.base}/v1/consumers/${CONSUMER}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentSecret}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.description])).toEqual([
        ["browser_page_snapshot", "Title, address and visible text of the active tab"],
      ]);
      const result = await client.callTool({ name: "browser_page_snapshot", arguments: {} });
      const page = {
        title: "Field notes: herons",
        url: `${pages.url}article`,
        text: "Field notes\n\nThe heron waits at the edge of the reeds.\n\nIt strikes once — and eats.",
        text_length: 83,
        truncated: false,
      };
      const content = result.content as Array<{ type: string; text: string }>;
      expect(content).toHaveLength(2);
      expect(content[0]?.type).toBe("text");
      expect(JSON.parse(content[0]?.text ?? "")).toEqual(page);
      expect(result.isError).toBe(false);
      const structured = result.structuredContent as { status: string; data: Record<string, unknown> };
      expect(structured.status).toBe("succeeded");
      expect(structured.data).toEqual({
        capability_id: SNAPSHOT,
        media_type: "application/json",
        byte_len: new TextEncoder().encode(content[0]?.text ?? "").length,
        truncated: false,
        json: page,
        content: [{ type: "text", text: content[0]?.text }],
      });
    } finally {
      await client.close();
      await tab.close();
    }
  });
});
