import { describe, expect, it } from "vitest";
import { readCappedBytes } from "../../../src/worker/http/body";

const text = (outcome: Awaited<ReturnType<typeof readCappedBytes>>) =>
  outcome.ok ? new TextDecoder().decode(outcome.value) : outcome.error.code;
const streamOf = (...pieces: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
      controller.close();
    },
  });

describe("readCappedBytes: a body of at most the cap, read once", () => {
  it("reads a body with a declared length within the cap whole", async () => {
    const request = new Request("https://gate.test/", {
      method: "POST",
      body: '{"a":1}',
      headers: { "content-length": "7" },
    });
    expect(text(await readCappedBytes(request, 7))).toBe('{"a":1}');
  });

  it("refuses a declared length over the cap before reading", async () => {
    const request = new Request("https://gate.test/", {
      method: "POST",
      body: "x".repeat(9),
      headers: { "content-length": "9" },
    });
    expect(text(await readCappedBytes(request, 8))).toBe("BODY_TOO_LARGE");
  });

  it("reads a body without a declared length piece by piece, and refuses it once it passes the cap", async () => {
    const small = new Request("https://gate.test/", {
      method: "POST",
      body: streamOf("ab", "cd", "e"),
      duplex: "half",
    } as RequestInit);
    expect(text(await readCappedBytes(small, 5))).toBe("abcde");
    const large = new Request("https://gate.test/", {
      method: "POST",
      body: streamOf("ab", "cd", "ef"),
      duplex: "half",
    } as RequestInit);
    expect(text(await readCappedBytes(large, 5))).toBe("BODY_TOO_LARGE");
  });

  it("counts the bytes it read, not the length a body built in code declares", async () => {
    const request = new Request("https://gate.test/", {
      method: "POST",
      body: "x".repeat(9),
      headers: { "content-length": "3" },
    });
    expect(text(await readCappedBytes(request, 5))).toBe("BODY_TOO_LARGE");
  });

  it("reads an encoded body piece by piece whatever length it declares (the runtime decodes a fetched one)", async () => {
    // An answer whose declared length is its gzip's while the runtime hands over the decoded
    // bytes (16 MiB here): read whole, all of it is buffered before the count; read piece by
    // piece, reading stops at the cap.
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 16 * 1024 * 1024) return controller.close();
        sent += 1024;
        controller.enqueue(new Uint8Array(1024).fill(0x61));
      },
    });
    const answer = new Response(endless, { headers: { "content-length": "12", "content-encoding": "gzip" } });
    expect(text(await readCappedBytes(answer, 4096))).toBe("BODY_TOO_LARGE");
    expect(sent).toBeLessThanOrEqual(4096 + 3 * 1024);
    const identity = new Response("abc", { headers: { "content-length": "3", "content-encoding": "identity" } });
    expect(text(await readCappedBytes(identity, 5))).toBe("abc");
    const brotli = new Response(streamOf("ab", "cd"), {
      headers: { "content-length": "2", "content-encoding": "br" },
    });
    expect(text(await readCappedBytes(brotli, 5))).toBe("abcd");
  });
});
