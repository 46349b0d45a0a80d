import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runEnvelope } from "../../src/cli/envelope";
import type { CliIo } from "../../src/cli/io";

const dir = fileURLToPath(new URL("../../fixtures/execution/", import.meta.url));

function harness(files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => {
      if (Object.hasOwn(files, path)) return new TextEncoder().encode(files[path]);
      if (path.startsWith("fixture:")) return new Uint8Array(readFileSync(`${dir}${path.slice(8)}`));
      throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    },
  };
  return { io, out, err };
}

describe("toolgate envelope validate", () => {
  it("prints one ok line per valid file and exits 0", () => {
    const { io, out, err } = harness();
    expect(runEnvelope(["validate", "fixture:enqueue.v1.json", "fixture:event-ack.v1.json"], io)).toBe(0);
    expect(out.join("")).toBe(
      '{"file":"fixture:enqueue.v1.json","ok":true,"code":null,"path":null,"message":null}\n' +
        '{"file":"fixture:event-ack.v1.json","ok":true,"code":null,"path":null,"message":null}\n',
    );
    expect(err).toEqual([]);
  });

  it("reports each refusal with its code, path and message, and exits 2", () => {
    const enqueue = readFileSync(`${dir}enqueue.v1.json`, "utf8");
    const { io, out } = harness({
      "unknown.json": enqueue.replace(
        '"sent_at_unix_ms": 1700000000000',
        '"sent_at_unix_ms": 1700000000000, "unexpected": true',
      ),
      "version.json": enqueue.replace('"version": 1', '"version": 2'),
      "garbage.json": "{}",
    });
    expect(
      runEnvelope(
        ["validate", "unknown.json", "fixture:observation.v1.json", "version.json", "garbage.json", "missing.json"],
        io,
      ),
    ).toBe(2);
    expect(out.join("").split("\n")).toEqual([
      '{"file":"unknown.json","ok":false,"code":"unknown_field","path":"metadata.unexpected","message":"unknown protocol field: metadata.unexpected"}',
      '{"file":"fixture:observation.v1.json","ok":true,"code":null,"path":null,"message":null}',
      '{"file":"version.json","ok":false,"code":"unsupported_version","path":null,"message":"unsupported protocol version 2"}',
      '{"file":"garbage.json","ok":false,"code":"invalid_json","path":null,"message":"invalid protocol JSON: missing field `metadata` at $"}',
      '{"file":"missing.json","ok":false,"code":"invalid_json","path":null,"message":"cannot read file: ENOENT: no such file or directory, open \'missing.json\'"}',
      "",
    ]);
  });

  it.each([[[]], [["validate"]], [["check", "a.json"]]])("exits 2 with usage for %j", (args) => {
    const { io, out, err } = harness();
    expect(runEnvelope(args, io)).toBe(2);
    expect(out).toEqual([]);
    expect(err).toEqual(["usage: toolgate envelope validate FILE...\n"]);
  });
});
