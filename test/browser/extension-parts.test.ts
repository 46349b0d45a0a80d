/**
 * The browser extension's pure parts (examples/browser-extension/src), in Node: the snapshot's
 * bounds, the backoff, the settings' checks. The extension itself runs in extension.test.ts.
 */
import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../examples/browser-extension/src/attachment";
import { checkSettings, sitePatterns, storedSettings } from "../../examples/browser-extension/src/settings";
import { pageSnapshot } from "../../examples/browser-extension/src/snapshot";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe("the page snapshot", () => {
  it("is the page's reading as JSON when it fits", () => {
    const snapshot = pageSnapshot({ title: "Café", url: "http://127.0.0.1:8080/", text: 'Say "hi"\n', text_length: 9 });
    expect(text(snapshot.bytes)).toBe(
      '{"title":"Café","url":"http://127.0.0.1:8080/","text":"Say \\"hi\\"\\n","text_length":9,"truncated":false}',
    );
    expect(snapshot.truncated).toBe(false);
  });

  it("is truncated when the page handed over less text than it has", () => {
    const snapshot = pageSnapshot({ title: "t", url: "u", text: "ab", text_length: 5 });
    expect([text(snapshot.bytes), snapshot.truncated]).toEqual([
      '{"title":"t","url":"u","text":"ab","text_length":5,"truncated":true}',
      true,
    ]);
  });

  it("cuts a long title to 1 KiB and a long address to 2 KiB of JSON text", () => {
    const result = JSON.parse(
      text(pageSnapshot({ title: "T".repeat(5000), url: "U".repeat(5000), text: "x", text_length: 1 }).bytes),
    );
    expect(result).toEqual({
      title: "T".repeat(1024),
      url: "U".repeat(2048),
      text: "x",
      text_length: 1,
      truncated: true,
    });
  });

  it("counts escapes and multi-byte characters against the 12 KiB bound and never splits a character", () => {
    // Each control character is 6 bytes of JSON (\u0001), each emoji 4 bytes of UTF-8.
    const page = "\u0001".repeat(3000) + "😀".repeat(3000);
    const snapshot = pageSnapshot({ title: "", url: "", text: page, text_length: page.length });
    const shell = '{"title":"","url":"","text":"","text_length":9000,"truncated":true}'.length;
    // 12288 − 67 = 12221 bytes leave room for 2036 escapes (12216 bytes), not one more.
    expect(shell).toBe(67);
    expect(JSON.parse(text(snapshot.bytes))).toEqual({
      title: "",
      url: "",
      text: "\u0001".repeat(2036),
      text_length: 9000,
      truncated: true,
    });
    expect(snapshot.bytes.length).toBe(67 + 2036 * 6);
    const emoji = pageSnapshot({ title: "", url: "", text: "😀".repeat(4000), text_length: 8000 });
    // 12221 / 4 = 3055.25: 3055 whole emoji, never half of one.
    expect(JSON.parse(text(emoji.bytes)).text).toBe("😀".repeat(3055));
  });
});

describe("the backoff", () => {
  it("waits between half and all of a step that doubles from 1 s to at most 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((n) => [backoffDelay(n, 0), backoffDelay(n, 0.999_999)])).toEqual([
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [8000, 16000],
      [15000, 30000],
      [15000, 30000],
      [15000, 30000],
    ]);
  });
});

describe("the settings", () => {
  const typed = {
    gateUrl: " http://127.0.0.1:8787/ ",
    consumer: " demo ",
    providerId: "browser-1",
    credential: "tg_provider_abc ",
  };

  it("keeps the gate's origin and trims every field", () => {
    expect(checkSettings(typed)).toEqual({
      ok: true,
      value: {
        gateUrl: "http://127.0.0.1:8787",
        consumer: "demo",
        providerId: "browser-1",
        credential: "tg_provider_abc",
      },
    });
    expect(storedSettings({ ...typed, gateUrl: "https://gate.example" })).toEqual({
      gateUrl: "https://gate.example",
      consumer: "demo",
      providerId: "browser-1",
      credential: "tg_provider_abc",
    });
  });

  it("names the first field to correct", () => {
    const message = "the gate's origin, such as https://gate.example or http://127.0.0.1:8787";
    for (const gateUrl of [
      "gate.example",
      "ftp://gate.example",
      "https://gate.example/v1",
      "https://u:p@gate.example",
      "https://gate.example/?x=1",
    ]) {
      expect(checkSettings({ ...typed, gateUrl })).toEqual({ ok: false, error: { field: "gateUrl", message } });
    }
    expect(checkSettings({ ...typed, consumer: " " })).toEqual({
      ok: false,
      error: { field: "consumer", message: "the consumer's name" },
    });
    expect(checkSettings({ ...typed, providerId: "" })).toEqual({
      ok: false,
      error: { field: "providerId", message: "the provider's id, the subject of its credential" },
    });
    expect(checkSettings({ ...typed, credential: "tg_provider_a b" })).toEqual({
      ok: false,
      error: { field: "credential", message: "the provider credential (tg_provider_…)" },
    });
    expect([
      storedSettings(undefined),
      storedSettings({ ...typed, credential: 7 }),
      storedSettings({ ...typed, gateUrl: "nope" }),
    ]).toEqual([null, null, null]);
  });

  it("turns the sites typed into match patterns, one origin a line", () => {
    expect(sitePatterns("https://docs.example.com\n\n  http://intranet.test:8080/ \n")).toEqual({
      ok: true,
      patterns: ["https://docs.example.com/*", "http://intranet.test/*"],
    });
    expect(sitePatterns("https://docs.example.com/guide")).toEqual({
      ok: false,
      line: "https://docs.example.com/guide",
    });
    expect(sitePatterns("")).toEqual({ ok: true, patterns: [] });
  });
});
