import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const core = join(root, "src/core");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const ALLOWED_PACKAGES = [/^zod(\/|$)/, /^@noble\/hashes\//, /^@noble\/curves\//, /^@marcbachmann\/cel-js$/];
const FORBIDDEN_CALLS = [
  /\bDate\.now\(/,
  /\bnew Date\(\s*\)/,
  /\bconsole\./,
  /\bMath\.random\(/,
  /\bperformance\.now\(/,
  /\bJSON\.parse\(/,
];

describe("src/core stays pure", () => {
  const files = sources(core);

  it("has sources to check", () => {
    expect(files.length > 5).toBe(true);
  });

  it("imports only zod, @noble/hashes, @noble/curves and other core modules", () => {
    const offending: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const spec = (match[1] ?? match[2]) as string;
        const ok = spec.startsWith(".")
          ? !relative(core, join(file, "..", spec)).startsWith("..")
          : ALLOWED_PACKAGES.some((re) => re.test(spec));
        if (!ok) offending.push(`${relative(root, file)} imports ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("never reads the clock, logs, draws randomness or parses JSON loosely", () => {
    const offending: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const re of FORBIDDEN_CALLS) if (re.test(text)) offending.push(`${relative(root, file)}: ${re.source}`);
    }
    expect(offending).toEqual([]);
  });
});

describe("src/conformance stays pure: the core's rules, and it imports nothing but the core and itself", () => {
  const conformance = join(root, "src/conformance");
  const files = sources(conformance);

  it("has the tool-cases and capability-cases harness to check", () => {
    expect(
      files
        .map((file) => relative(conformance, file))
        .filter((path) => path.endsWith("index.ts"))
        .sort(),
    ).toEqual(["capability-cases/index.ts", "index.ts", "tool-cases/index.ts"]);
  });

  it("imports only src/core and src/conformance modules", () => {
    const offending: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const spec = (match[1] ?? match[2]) as string;
        const target = join(file, "..", spec);
        const ok =
          spec.startsWith(".") &&
          (!relative(core, target).startsWith("..") || !relative(conformance, target).startsWith(".."));
        if (!ok) offending.push(`${relative(root, file)} imports ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("never reads the clock, logs, draws randomness or parses JSON loosely", () => {
    const offending: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const re of FORBIDDEN_CALLS) if (re.test(text)) offending.push(`${relative(root, file)}: ${re.source}`);
    }
    expect(offending).toEqual([]);
  });
});
