// Test helpers: fixture files under fixtures/tool-cases, read from the repository.
import { readdirSync, readFileSync } from "node:fs";
import type { CliIo } from "../../../src/cli/io";

export const FIXTURES = new URL("../../../fixtures/tool-cases/", import.meta.url);

export function fixturePath(name: string): string {
  return new URL(name, FIXTURES).pathname;
}

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, FIXTURES)));
}

export function listFixtures(dir: string, filter: (name: string) => boolean): string[] {
  return readdirSync(new URL(dir, FIXTURES))
    .filter(filter)
    .sort()
    .map((name) => `${dir}${name}`);
}

/** A CliIo that records both streams and reads files from disk. */
export function captureIo(): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
    readFile(path: string) {
      return new Uint8Array(readFileSync(path));
    },
  };
  return io;
}
