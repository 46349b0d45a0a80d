// Builds the published package into dist/: one ESM file per entry point (`toolgate` → the core,
// `toolgate/client`, `toolgate/capability-provider`, `toolgate/tool-result`, `toolgate/worker`,
// `toolgate/ai-sdk`, `toolgate/openai-agents`; shared code in
// dist/chunks/) with esbuild, dependencies (and the optional peers `ai` and `@openai/agents-core`)
// left as imports so a host's bundler dedupes and tree-shakes them, and the type declarations
// under dist/types/ from `tsc -p tsconfig.build.json` (relative imports made fully specified, so
// they resolve under Node16/NodeNext too). Run by `prepack`.
import { build, type BuildOptions, type Plugin } from "esbuild";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { fullySpecifyDeclarations } from "./declaration-specifiers.ts";
import { ROOT } from "./paths.ts";

const root = `${ROOT}/`;

/** The package's entry points, by output name under dist/. */
export type EntryName =
  "core" | "client" | "capability-provider" | "tool-result" | "worker" | "ai-sdk" | "openai-agents";
const ENTRY_NAMES: readonly EntryName[] = [
  "core",
  "client",
  "capability-provider",
  "tool-result",
  "worker",
  "ai-sdk",
  "openai-agents",
];

/** The entry points: output name (under dist/) → source. */
export const ENTRIES: Readonly<Record<EntryName, string>> = {
  core: "src/core/index.ts",
  client: "src/client/index.ts",
  // For a browser, each alone: a capability provider (the client's provider half) and the Tool
  // Result engine (the core's toolResult namespace), so a page ships only what it runs.
  "capability-provider": "src/client/capability-provider.ts",
  "tool-result": "src/core/tool-result/index.ts",
  worker: "src/worker/gate.ts",
  // The AI SDK adapter: `ai` (an optional peer) stays an import, like every dependency.
  "ai-sdk": "src/adapters/ai-sdk/index.ts",
  "openai-agents": "src/adapters/openai-agents/index.ts",
};

/**
 * `src/core/zod.ts` re-exports zod/mini whole (`export *`), and every schema module reads it as
 * a namespace (`import * as z`). With zod left an import, esbuild can only build that namespace
 * as an object at run time (all of zod/mini copied in, its locales too), which no host's bundler
 * can tree-shake. This plugin loads the module with the same names re-exported one by one
 * (`export { string, … } from "zod/mini"`), so `z.string` becomes an import of `string` alone.
 * A name the module declares itself is left out of the list, as `export *` leaves it out.
 */
const namedZod: Plugin = {
  name: "named-zod-re-exports",
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]src[\\/]core[\\/]zod\.ts$/ }, async ({ path }) => {
      const whole = 'export * from "zod/mini";';
      const source = readFileSync(path, "utf8");
      if (!source.includes(whole)) throw new Error(`${path} no longer has ${whole}`);
      // A name the module declares itself (`registry`, `deferred`) shadows zod's under `export *`:
      // it stays the module's own.
      const own = new Set(
        [...source.matchAll(/^export (?:async )?(?:function|const|let|class) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]),
      );
      const names = Object.keys(await import("zod/mini"))
        .filter((name) => !own.has(name))
        .sort();
      return { contents: source.replace(whole, `export { ${names.join(", ")} } from "zod/mini";`), loader: "ts" };
    });
  },
};

/**
 * The esbuild options of the package's entries (`names`: which of {@link ENTRIES}) into `outdir`:
 * ESM, platform neutral (no Node or browser built-ins assumed), shared code in chunks/.
 */
export function entryBuild(
  names: readonly EntryName[],
  outdir: string,
): BuildOptions & { entryPoints: Array<{ in: string; out: string }> } {
  return {
    absWorkingDir: root,
    entryPoints: names.map((out) => ({ in: ENTRIES[out], out })),
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // Dependencies stay imports (installed with the package); the Workers runtime's own modules too.
    packages: "external",
    external: ["cloudflare:*"],
    plugins: [namedZod],
    logLevel: "warning",
  };
}

/** Bundles the entries into dist/. */
export async function buildJs(): Promise<void> {
  rmSync(`${root}dist/chunks`, { recursive: true, force: true });
  await build(entryBuild(ENTRY_NAMES, "dist"));
}

/**
 * Emits the `.d.ts` files of the entries (and what they reference) into dist/types/, their
 * relative imports fully specified (`./x.js`, `./x/index.js`) so they resolve under Node16,
 * NodeNext and Bundler alike; fails on an import that names no emitted file.
 */
export function buildTypes(): void {
  rmSync(`${root}dist/types`, { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.build.json`],
    { cwd: root, stdio: "inherit" },
  );
  if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${tsc.status})`);
  const { unresolved } = fullySpecifyDeclarations(`${root}dist/types`);
  if (unresolved.length > 0)
    throw new Error(
      `declarations import files that were not emitted:\n${unresolved.map((u) => `  ${u.file}: "${u.specifier}"`).join("\n")}`,
    );
}

/** The whole package build: JavaScript, then declarations. */
export async function buildPackage(): Promise<void> {
  await buildJs();
  buildTypes();
}
