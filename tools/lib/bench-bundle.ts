// The bundle figures of `npm run bench` (issue #32, goal 5: "a ceiling, not a goal"), each beside
// its ceiling or goal (how each is measured: tools/lib/bundle-measure.ts):
// - the Worker with every plane, as `wrangler deploy --dry-run` builds it (the production
//   build: wrangler.toml, minified): wrangler's own "Total Upload … / gzip …" line (gzip at
//   zlib's default level, all modules together, as wrangler reports it; the ceiling is read
//   against it), and the same output gzipped at level 9;
// - its top contributors by package or source folder, src/worker/features (the biggest folder)
//   by feature, so growth is named with the feature that bought it, and its top files one by
//   one, from the same build's source map;
// - the static assets beside it (not part of the bundle);
// - the browser entries as shipped: the package's entries built as `npm pack` ships them
//   (tools/lib/build-package.ts) and each bundled from there by esbuild for a browser (minified
//   ESM, its dependencies included), gzipped at level 9: `toolgate/client`,
//   `toolgate/capability-provider`, `toolgate/tool-result`; and what the example browser
//   extension ships (its bundles as tools/lib/build-extension.ts builds them, minified);
// - for reference, the whole core for a browser and the core by namespace.
// `node tools/run.js tools/bench-bundle.ts` prints the same section alone.
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { entryBuild, type EntryName } from "./build-package.ts";
import { extensionBuild } from "./build-extension.ts";
import {
  browserBundle,
  contributors,
  fileUnder,
  folderUnder,
  gzip9,
  kib,
  shippedBundles,
  wranglerBuild,
  type Contributor,
  type SourceMap,
} from "./bundle-measure.ts";
import { ROOT } from "./paths.ts";

const root = `${ROOT}/`;

/** Issue #32's ceiling for the Worker, gzip as wrangler reports it, in KiB. */
export const WORKER_CEILING_KIB = 256;
/** Issue #32's goals for what a browser ships, gzip at level 9, in KiB. */
export const BROWSER_GOALS_KIB = { client: 12, extension: 40, toolResult: 40 } as const;

/** The files under the Worker's assets folder, by path relative to it. */
function assetFiles(dir: string, prefix = ""): Array<{ path: string; bytes: Buffer }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? assetFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [{ path: `${prefix}${entry.name}`, bytes: readFileSync(join(dir, entry.name)) }],
  );
}

/** The namespaces src/core/index.ts exports (`export * as <name>`), each measured alone. */
const coreNamespaces = (): string[] =>
  [...readFileSync(join(root, "src/core/index.ts"), "utf8").matchAll(/^export \* as (\w+) from/gm)].map(
    (m) => m[1] ?? "",
  );

/** One contributor's line. */
const row = (g: Contributor): string =>
  `    ${g.group.padEnd(44)} ${kib(g.min).padStart(10)} min  ${kib(g.gzip).padStart(9)} gzip`;

/** A figure beside its goal: `(goal ≤ 12 KiB gzip: within)`. */
const beside = (gzipKiB: number, goal: number, word = "goal"): string =>
  `(${word} ≤ ${goal} KiB gzip: ${gzipKiB <= goal ? "within" : `OVER by ${(gzipKiB - goal).toFixed(1)} KiB`})`;

/**
 * The browser entries as the package ships them: built as `npm pack` ships them into
 * `dir/node_modules/toolgate/` (dist/ and the manifest, so a bundler reads its `exports` and
 * `sideEffects`), then each imported whole by name (`export * from "toolgate/client"`) and
 * bundled for a browser, its dependencies from this repository's install.
 */
async function shippedEntries(dir: string): Promise<Record<"client" | "capabilityProvider" | "toolResult", number>> {
  const pkg = join(dir, "node_modules", "toolgate");
  await build({
    ...entryBuild(["client", "capability-provider", "tool-result"], join(pkg, "dist")),
    logLevel: "error",
  });
  copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
  const [client, provider, toolResult] = await Promise.all(
    ["client", "capability-provider", "tool-result"].map((name) =>
      browserBundle({ contents: `export * from "toolgate/${name}";`, resolveDir: dir }),
    ),
  );
  if (client === undefined || provider === undefined || toolResult === undefined)
    throw new Error("an entry is missing");
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  write("  browser entries as shipped (the package's dist/ entry bundled for a browser, minified, gzip level 9)");
  write(
    `    toolgate/client                 ${kib(client.min).padStart(10)} min  ${kib(client.gzip).padStart(9)} gzip   ${beside(client.gzip / 1024, BROWSER_GOALS_KIB.client)}`,
  );
  write(
    `    toolgate/capability-provider    ${kib(provider.min).padStart(10)} min  ${kib(provider.gzip).padStart(9)} gzip   (the extension's share of the package)`,
  );
  write(
    `    toolgate/tool-result            ${kib(toolResult.min).padStart(10)} min  ${kib(toolResult.gzip).padStart(9)} gzip   ${beside(toolResult.gzip / 1024, BROWSER_GOALS_KIB.toolResult)}`,
  );
  return { client: client.gzip, capabilityProvider: provider.gzip, toolResult: toolResult.gzip };
}

/** Prints the bundle section; `top` contributors are listed. */
export async function printBundle(top = 15): Promise<BundleFigures> {
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bundle-"));
  try {
    write("\nbundle (issue #32: the Worker's ceiling and the browser entries' goals)");
    const worker = wranglerBuild(join(dir, "worker"));
    const gzipped = gzip9(worker.bytes);
    write(
      `  worker, every plane (wrangler deploy --dry-run): ${worker.rawKiB.toFixed(1)} KiB, gzip ${worker.gzipKiB.toFixed(1)} KiB as wrangler reports it, ${kib(gzipped)} at level 9   ${beside(worker.gzipKiB, WORKER_CEILING_KIB, "ceiling")}`,
    );
    const main = worker.files.find((f) => f.endsWith(".js")) ?? "";
    if (existsSync(join(worker.dir, `${main}.map`))) {
      // The source map wrangler just wrote.
      const map = JSON.parse(readFileSync(join(worker.dir, `${main}.map`), "utf8")) as SourceMap;
      const code = readFileSync(join(worker.dir, main));
      const groups = contributors(code, map);
      const sum = groups.reduce((s, g) => s + g.gzip, 0);
      write(
        `  top ${top} contributors (minified bytes from the source map; gzip: each group alone at level 9, an estimate: the ${groups.length} groups sum to ${kib(sum)} against ${kib(gzipped)} together)`,
      );
      for (const g of groups.slice(0, top)) write(row(g));
      // Each feature's share, so the bundle's growth is named with the feature that bought it.
      const features = contributors(code, map, folderUnder("src/worker/features/")).filter(
        (g) => g.group !== "(elsewhere)",
      );
      write(`  src/worker/features by feature, all ${features.length} (each alone, the same estimate)`);
      for (const g of features) write(row(g));
      const files = contributors(code, map, fileUnder("src/worker/features/")).filter((g) => g.group !== "(elsewhere)");
      write(`  inside src/worker/features: its top ${top} files of ${files.length} (each alone, the same estimate)`);
      for (const g of files.slice(0, top)) write(row(g));
    } else write("  (wrangler wrote no source map: no per-module figures)");
    const assets = assetFiles(join(root, "assets"));
    if (assets.length > 0) {
      write(
        "  static assets (wrangler.toml [assets]: uploaded beside the Worker, not part of its bundle; the Worker serves them)",
      );
      for (const a of assets)
        write(
          `    ${a.path.padEnd(44)} ${kib(a.bytes.byteLength).padStart(10)}      ${kib(gzip9(a.bytes)).padStart(9)} gzip`,
        );
    }
    const entries = await shippedEntries(join(dir, "app"));
    const extension = await shippedBundles(extensionBuild(join(dir, "extension")));
    const extensionGzip = extension.reduce((s, f) => s + f.gzip, 0);
    write(
      `  the example browser extension (capability provider + client), minified, each file gzipped at level 9: ${kib(extensionGzip)} in all   ${beside(extensionGzip / 1024, BROWSER_GOALS_KIB.extension)}`,
    );
    for (const f of extension) write(row({ group: f.file, min: f.min, gzip: f.gzip }));
    // For reference (no goal of its own): the whole core, and what an app importing one of the
    // core's namespaces ships (with the strict JSON layer every namespace reads through).
    const core = await browserBundle("src/core/index.ts");
    write(
      `  for reference, the whole core for a browser (src/core/index.ts): ${kib(core.min)} min, ${kib(core.gzip)} gzip`,
    );
    write("  its top contributors (each group gzipped alone, an estimate)");
    for (const g of core.groups.slice(0, 8)) write(row(g));
    write("  the core by namespace: what an app importing only that one ships (with readJson and canonicalJson)");
    for (const name of coreNamespaces()) {
      const part = await browserBundle({
        contents: `export { readJson, canonicalJson, ${name} } from "./src/core/index.ts";`,
      });
      write(row({ group: name, ...part }));
    }
    return {
      worker: { wranglerGzipKiB: worker.gzipKiB, gzip9: gzipped },
      client: { gzip: entries.client },
      capabilityProvider: { gzip: entries.capabilityProvider },
      toolResult: { gzip: entries.toolResult },
      extension: { gzip: extensionGzip },
      core: { min: core.min, gzip: core.gzip },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures {@link printBundle} prints, for a caller that compares them (bytes, except where named KiB). */
export interface BundleFigures {
  worker: { wranglerGzipKiB: number; gzip9: number };
  client: { gzip: number };
  capabilityProvider: { gzip: number };
  toolResult: { gzip: number };
  extension: { gzip: number };
  core: { min: number; gzip: number };
}
