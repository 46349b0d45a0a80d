/** `prestart`/`pretest`: when node_modules does not hold the lockfile's packages, they are installed first. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error a JavaScript module (it runs before node_modules exists), type-checked by tools/tsconfig.json
import { staleReason } from "../../tools/ensure-install.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(lock: Record<string, unknown>, installed: Record<string, unknown> | null): string {
  const root = mkdtempSync(join(tmpdir(), "toolgate-install-"));
  dirs.push(root);
  writeFileSync(join(root, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: lock }));
  if (installed !== null) {
    mkdirSync(join(root, "node_modules"));
    writeFileSync(
      join(root, "node_modules", ".package-lock.json"),
      JSON.stringify({ lockfileVersion: 3, packages: installed }),
    );
  }
  return root;
}

const LOCK = {
  "": { name: "toolgate" },
  "node_modules/hono": { version: "4.13.19" },
  "node_modules/@esbuild/darwin-arm64": { version: "0.28.2", optional: true },
};

describe("staleReason", () => {
  it("names what is missing: node_modules, or a package at the lockfile's version", () => {
    expect(staleReason(project(LOCK, null))).toBe("node_modules is missing");
    expect(staleReason(project(LOCK, {}))).toBe("hono 4.13.19 is not installed");
    expect(staleReason(project(LOCK, { "node_modules/hono": { version: "4.13.18" } }))).toBe(
      "hono 4.13.19 is not installed",
    );
  });

  it("is null when every non-optional package is installed at its version (another platform's optional ones need not be)", () => {
    expect(staleReason(project(LOCK, { "node_modules/hono": { version: "4.13.19" } }))).toBe(null);
  });
});
