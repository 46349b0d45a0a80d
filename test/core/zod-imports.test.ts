import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every schema is zod/mini with English messages, set once by src/core/zod.ts (issue #17: zod
// classic alone added about 17 KiB gzipped to the Worker and to the core). One direct import of
// "zod" brings classic back into every bundle, and one of "zod/mini" misses the messages.
const root = fileURLToPath(new URL("../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

const ZOD_IMPORT = /(?:import|export)\s[^;]*?from\s+["'](zod(?:\/[^"']*)?)["']/g;

describe("src/ reaches zod only through src/core/zod.ts", () => {
  it("has no other import of zod, zod/mini or a zod subpath", () => {
    const direct = sources(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(ZOD_IMPORT)].map((m) => `${relative(root, file)} imports ${m[1]}`),
    );
    expect(direct).toEqual([
      "src/core/zod.ts imports zod/v4/locales/en.js",
      "src/core/zod.ts imports zod/mini",
      "src/core/zod.ts imports zod/mini",
    ]);
  });
});
