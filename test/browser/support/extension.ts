import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { chromiumPath } from "./chromium";
import type { PageServer } from "./page-server";

/** Chromium with one unpacked extension loaded, in its own profile. */
export interface ExtensionBrowser {
  readonly context: BrowserContext;
  readonly extensionId: string;
  /** The URL of the extension's service worker. */
  readonly workerUrl: string;
  close(): Promise<void>;
}

/**
 * Launches Chromium (new headless mode: extensions need it and a persistent profile) with the
 * extension folder `dir` loaded as it is, and answers once its service worker runs.
 */
export async function launchExtension(dir: string): Promise<ExtensionBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "toolgate-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: false,
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: 30_000 }));
  const workerUrl = worker.url();
  return {
    context,
    extensionId: new URL(workerUrl).host,
    workerUrl,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Serves fixed HTML pages (path → document) from 127.0.0.1. */
export async function serveHtml(pages: Record<string, string>): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const page = pages[(req.url ?? "/").split("?")[0] ?? "/"];
    if (page === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
