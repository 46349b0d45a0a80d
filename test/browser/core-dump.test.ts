import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium";
import { type PageServer, servePage } from "./support/page-server";

let browser: Browser;
let server: PageServer;
const expected = readFileSync(new URL("../../fixtures/tool-cases/public-cases.expected.json", import.meta.url), "utf8");

beforeAll(async () => {
  const fixture = readFileSync(new URL("../../fixtures/tool-cases/public-cases.json", import.meta.url), "utf8");
  server = await servePage(fileURLToPath(new URL("./pages/core-dump.ts", import.meta.url)), {
    "/fixture.json": fixture,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the Tool Result v2 core, unchanged, in real Chromium", () => {
  it("dumps the public fixture byte-identical to the reference dump", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => "toolgateDump" in globalThis);
    const result = await page.evaluate(() =>
      (globalThis as unknown as { toolgateDump: () => Promise<{ text: string; exitCode: number }> }).toolgateDump(),
    );
    expect(result.exitCode).toBe(0);
    expect(result.text.length).toBe(expected.length);
    expect(result.text).toBe(expected);
  });
});
