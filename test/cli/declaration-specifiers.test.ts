/**
 * The package build's rewrite of relative specifiers in the emitted declarations
 * (tools/lib/declaration-specifiers.ts): each becomes the `.js` path of the `.d.ts` that exists,
 * as Node16/NodeNext resolve it; one naming no file is reported, never guessed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fullySpecifyDeclarations } from "../../tools/lib/declaration-specifiers";

let dir = "";
afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → text) under a new scratch folder. */
function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "toolgate-dts-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("fullySpecifyDeclarations", () => {
  it("names the file each relative specifier resolves to, in imports, exports and import types", () => {
    const root = tree({
      "a.d.ts": "export type A = 1;\n",
      "b.d.ts": "export type B = 2;\n",
      "lib/index.d.ts": "export type L = 3;\n",
      "both.d.ts": "export type Both = 4;\n",
      "both/index.d.ts": "export type Inner = 5;\n",
      "sub/index.d.ts": 'export * from "./c";\n',
      "sub/c.d.ts": [
        '/** See {@link import("../a").A}: comments stay as written. */',
        'import type { A } from "../a";',
        'import { B } from "../b.js";',
        'export { type L } from "../lib";',
        'export * from "../both";',
        'export type T = import("../b.ts").B | import(".").X;',
        'import type { Hono } from "hono";',
        "export declare const a: A;",
        "",
      ].join("\n"),
    });
    expect(fullySpecifyDeclarations(root)).toEqual({ files: 7, rewritten: 6, unresolved: [] });
    expect(readFileSync(join(root, "sub/c.d.ts"), "utf8")).toBe(
      [
        '/** See {@link import("../a").A}: comments stay as written. */',
        'import type { A } from "../a.js";',
        'import { B } from "../b.js";',
        'export { type L } from "../lib/index.js";',
        'export * from "../both.js";',
        'export type T = import("../b.js").B | import("./index.js").X;',
        'import type { Hono } from "hono";',
        "export declare const a: A;",
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(root, "sub/index.d.ts"), "utf8")).toBe('export * from "./c.js";\n');
  });

  it("reports a specifier that names no declaration and leaves it as it was", () => {
    const root = tree({ "x.d.ts": 'export * from "./gone";\nexport * from "./gone.js";\n' });
    expect(fullySpecifyDeclarations(root)).toEqual({
      files: 1,
      rewritten: 0,
      unresolved: [
        { file: "x.d.ts", specifier: "./gone" },
        { file: "x.d.ts", specifier: "./gone.js" },
      ],
    });
    expect(readFileSync(join(root, "x.d.ts"), "utf8")).toBe('export * from "./gone";\nexport * from "./gone.js";\n');
  });
});
