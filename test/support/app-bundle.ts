/**
 * The app's own modules as one module in each workerd test file (the "worker" and "rel-worker"
 * projects). The pool loads the Worker, and every source module a test imports, through vitest's
 * module runner: one round trip to this process per module, one after another down the import
 * graph. The Worker is about 400 modules, so each file's workerd spent seconds importing it before
 * its first test ran, in every file.
 *
 * Under `vitest run` this plugin bundles the sources once per run (esbuild, the libraries left as
 * imports for the dependency optimizer, see workerd-deps.ts) into one module that exports each
 * source module's namespace, and answers each source module with a facade re-exporting its
 * namespace from that bundle. So the Worker the tests drive and the modules they import are the
 * same instances (one class `ConsumerObject`, one module state), loaded in two round trips.
 *
 * What differs from loading module by module: every bundled module's top-level code runs when the
 * bundle loads, not when first imported (the app's modules only define things at top level), and a
 * facade's exports are copies (no module here re-assigns an exported `let`). `vitest` in watch mode
 * and `TOOLGATE_TEST_UNBUNDLED=1` load the modules one by one as before.
 */
import { buildSync, type BuildOptions, type Metafile } from "esbuild";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Plugin } from "vite";

const ROOT = resolve(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");
/** Source folders that do not run in workerd (the CLI; the adapters, which import their SDKs). */
const OUTSIDE = new Set(["cli", "adapters"]);
/** Where the bundle is written (read by this plugin, kept for a look when a stack points into it). */
const OUT = join(ROOT, ".toolgate", "workerd-app");
const BUNDLE = join(OUT, "app.js");

/** Every .ts file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The source modules some test file imports by a relative path (outside the folders that do not run in workerd). */
function importedByTests(): string[] {
  const found = new Set<string>();
  for (const file of filesUnder(join(ROOT, "test")))
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]*\bsrc\/[^"]+)"/g)) {
      const path = resolve(dirname(file), spec ?? "");
      const inside = relative(SRC, path).split("/")[0] ?? "";
      if (inside === ".." || OUTSIDE.has(inside)) continue;
      const module = [path, `${path}.ts`, join(path, "index.ts")].find((p) => p.endsWith(".ts") && existsSync(p));
      if (module !== undefined) found.add(module);
    }
  return [...found];
}

/** The options both builds share: the libraries, `cloudflare:` and `node:` modules stay imports. */
const shared: BuildOptions = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  tsconfig: join(ROOT, "tsconfig.json"),
  packages: "external",
  external: ["cloudflare:*", "node:*"],
  logLevel: "error",
};

/** Each module's value exports (names), read from an esbuild build with one entry per module. */
function exportsOf(modules: readonly string[]): Map<string, string[]> {
  const { metafile } = buildSync({
    ...shared,
    entryPoints: [...modules],
    splitting: true,
    outdir: OUT,
    write: false,
    metafile: true,
  });
  const names = new Map<string, string[]>();
  for (const output of Object.values((metafile as Metafile).outputs))
    if (output.entryPoint !== undefined) names.set(resolve(ROOT, output.entryPoint), output.exports);
  return names;
}

interface Bundle {
  /** Source path → its facade's code. */
  facades: Map<string, string>;
  code: string;
  map: string;
}

/** The source modules the Worker and the tests' own imports reach. */
function sources(): string[] {
  const entryPoints = [join(SRC, "worker", "index.ts"), ...importedByTests()];
  const { metafile } = buildSync({ ...shared, entryPoints, outdir: OUT, write: false, metafile: true });
  return Object.keys((metafile as Metafile).inputs)
    .map((input) => resolve(ROOT, input))
    .filter((path) => path.startsWith(`${SRC}/`) && path.endsWith(".ts"));
}

function build(): Bundle {
  const modules = sources();
  const names = exportsOf(modules);
  const id = new Map(modules.map((path, i) => [path, `m${i}`]));
  const entry = modules.map((path) => `export * as ${id.get(path)} from ${JSON.stringify(path)};`).join("\n");
  const built = buildSync({
    ...shared,
    stdin: { contents: entry, resolveDir: ROOT, sourcefile: "workerd-app-entry.js", loader: "js" },
    outfile: BUNDLE,
    sourcemap: "external",
    write: false,
  });
  const code = built.outputFiles.find((f) => f.path.endsWith(".js"))?.text;
  const map = built.outputFiles.find((f) => f.path.endsWith(".map"))?.text;
  if (code === undefined || map === undefined) throw new Error("the app bundle built no code");
  mkdirSync(OUT, { recursive: true });
  writeFileSync(BUNDLE, code);
  const facades = new Map<string, string>();
  for (const path of modules) {
    const exported = names.get(path) ?? [];
    const named = exported.filter((n) => n !== "default");
    const lines = [`import { ${id.get(path)} as namespace } from ${JSON.stringify(BUNDLE)};`];
    if (named.length > 0) lines.push(`export const { ${named.join(", ")} } = namespace;`);
    if (exported.includes("default")) lines.push("export default namespace.default;");
    // A library's names re-exported whole (`export * from "zod/mini"`) are not in the metafile's list.
    for (const [statement] of readFileSync(path, "utf8").matchAll(/^export \* from "[^./][^"]*";$/gm))
      lines.push(statement);
    facades.set(path, `${lines.join("\n")}\n`);
  }
  return { facades, code, map };
}

/** Whether this is `vitest run`, where no module changes during the run (not watch mode). */
export const VITEST_RUN = process.argv.includes("run");

/** The plugin (inactive in watch mode and with TOOLGATE_TEST_UNBUNDLED=1). */
export function appBundle(): Plugin {
  const active = VITEST_RUN && process.env.TOOLGATE_TEST_UNBUNDLED !== "1";
  let bundle: Bundle | null = null;
  const current = (): Bundle => (bundle ??= build());
  return {
    name: "toolgate:workerd-app-bundle",
    enforce: "pre",
    load(id) {
      // A module asked with a query (`?raw`) is not the module itself: left to vite.
      if (!active || id.includes("?")) return null;
      if (id === BUNDLE) {
        const { code, map } = current();
        return { code, map };
      }
      return id.startsWith(`${SRC}/`) ? (current().facades.get(id) ?? null) : null;
    },
  };
}
