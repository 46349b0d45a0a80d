import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium";
import { type PageServer, servePage } from "./support/page-server";

let browser: Browser;
let server: PageServer;

beforeAll(async () => {
  const vectors = readFileSync(new URL("../../fixtures/json/vectors.json", import.meta.url), "utf8");
  server = await servePage(fileURLToPath(new URL("./pages/json-golden.ts", import.meta.url)), {
    "/vectors.json": vectors,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the core's JSON in real Chromium", () => {
  it("matches every Python golden vector", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => "toolgateCheck" in globalThis);
    const result = await page.evaluate(() =>
      (globalThis as unknown as { toolgateCheck: () => Promise<unknown> }).toolgateCheck(),
    );
    expect(result).toEqual({ documents: 607, floats: 3000, mismatches: [] });
  });
});
