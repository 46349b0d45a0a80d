// The bundle figures of `npm run bench` (issue #17, "Bundle"), each beside its goal:
// - the Worker with every plane, as `wrangler deploy --dry-run` builds it (the production
//   build: wrangler.toml, minified): wrangler's own "Total Upload … / gzip …" line (gzip at
//   zlib's default level, all modules together, as wrangler reports it), and the same output
//   gzipped at level 9;
// - the top contributors by package or source folder: the same build's source map attributes
//   each byte of the output to a module; each group's bytes are gzipped on their own at level 9
//   (an estimate: gzipped apart, groups lose the context they share, so the estimates sum to a
//   little more than the whole);
// - the core alone (src/core/index.ts) and the client (src/client/index.ts), each bundled by
//   esbuild for a browser (minified, ESM), gzipped at level 9.
// `node tools/run.js tools/bench-bundle.ts` prints the same section alone.
import { build, type BuildOptions } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, gzipSync } from "node:zlib";
import { ROOT } from "./paths.ts";

const root = `${ROOT}/`;
const KIB = 1024;
const gzip9 = (bytes: Uint8Array): number => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).byteLength;
const kib = (bytes: number): string => `${(bytes / KIB).toFixed(1)} KiB`;

/** The Worker as `wrangler deploy --dry-run` builds it: wrangler's report, the output files, the source map. */
function wranglerBuild(dir: string): { rawKiB: number; gzipKiB: number; bytes: Buffer; files: string[]; dir: string } {
  const run = spawnSync(
    process.execPath,
    [join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", dir],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
      timeout: 5 * 60 * 1000,
    },
  );
  const out = `${run.stdout}${run.stderr}`;
  const total = /Total Upload: ([0-9.]+) KiB \/ gzip: ([0-9.]+) KiB/.exec(out);
  if (run.status !== 0 || total === null)
    throw new Error(`wrangler deploy --dry-run failed (exit ${run.status}):\n${out.slice(-2000)}`);
  const files = readdirSync(dir).filter((f) => /\.(m?js|wasm|bin|txt|json)$/.test(f) && !f.endsWith(".map"));
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  return { rawKiB: Number(total[1]), gzipKiB: Number(total[2]), bytes, files, dir };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** A source map's segments: per generated line, [column, source index or -1] in order. */
function segments(mappings: string): Array<Array<[number, number]>> {
  const lines: Array<Array<[number, number]>> = [];
  let source = 0;
  for (const line of mappings.split(";")) {
    const out: Array<[number, number]> = [];
    let column = 0;
    for (const segment of line.split(",")) {
      if (segment === "") continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = DIGIT.get(ch) ?? 0;
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length > 1) source += fields[1] ?? 0;
      out.push([column, fields.length > 1 ? source : -1]);
    }
    lines.push(out);
  }
  return lines;
}

/** The group a source belongs to: its npm package, or its folder under src/ (planes one by one). */
export function groupOf(path: string): string {
  const normal = path.replace(/\\/g, "/");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(normal);
  if (pkg?.[1] !== undefined) return pkg[1];
  const src = /(?:^|\/)(src\/.*)$/.exec(normal);
  if (src?.[1] === undefined) return "(wrangler and esbuild glue)";
  const parts = src[1].split("/").slice(0, -1);
  return parts.slice(0, parts[1] === "worker" && parts[2] === "object" ? 4 : 3).join("/");
}

/** Each group's output bytes (from the source map) and their gzip estimate, largest first. */
export function contributors(code: Buffer, map: SourceMap): Contributor[] {
  const text = code.toString("utf8");
  const lines = text.split("\n");
  const slices = new Map<string, string[]>();
  const add = (group: string, piece: string): void => {
    if (piece.length === 0) return;
    const list = slices.get(group) ?? [];
    list.push(piece);
    slices.set(group, list);
  };
  const groups = map.sources.map(groupOf);
  segments(map.mappings).forEach((segs, lineIndex) => {
    const line = lines[lineIndex] ?? "";
    if (segs.length === 0) return add("(unmapped)", line);
    add("(unmapped)", line.slice(0, segs[0]?.[0] ?? 0));
    segs.forEach(([column, source], i) =>
      add(
        source < 0 ? "(unmapped)" : (groups[source] ?? "(unmapped)"),
        line.slice(column, segs[i + 1]?.[0] ?? line.length),
      ),
    );
  });
  return [...slices]
    .map(([group, pieces]) => {
      const bytes = Buffer.from(pieces.join(""), "utf8");
      return { group, min: bytes.byteLength, gzip: gzip9(bytes) };
    })
    .sort((a, b) => b.gzip - a.gzip);
}

/**
 * An entry bundled by esbuild for a browser (minified ESM): its bytes raw and gzipped at level 9,
 * its contributors. `entry`: a file, or `{ contents }` (a module's source, resolved from the root).
 */
async function browserBundle(
  entry: string | { contents: string },
): Promise<{ min: number; gzip: number; groups: Contributor[] }> {
  const input: BuildOptions =
    typeof entry === "string"
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: root, sourcefile: "entry.ts", loader: "ts" } };
  const out = await build({
    absWorkingDir: root,
    ...input,
    outdir: "out",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    sourcemap: "external",
    write: false,
    logLevel: "warning",
  });
  const js = out.outputFiles.find((f) => f.path.endsWith(".js"));
  const sourceMap = out.outputFiles.find((f) => f.path.endsWith(".map"));
  if (js === undefined || sourceMap === undefined) throw new Error("esbuild wrote no bundle or no source map");
  const code = js.contents;
  // esbuild's own output.
  const map = JSON.parse(sourceMap.text) as SourceMap;
  return { min: code.byteLength, gzip: gzip9(code), groups: contributors(Buffer.from(code), map) };
}

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

/** Prints the bundle section; `top` contributors are listed. */
export async function printBundle(top = 15): Promise<BundleFigures> {
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bundle-"));
  try {
    write("\nbundle (goals from issue #17)");
    const worker = wranglerBuild(dir);
    const gzipped = gzip9(worker.bytes);
    write(
      `  worker, every plane (wrangler deploy --dry-run): ${worker.rawKiB.toFixed(1)} KiB, gzip ${worker.gzipKiB.toFixed(1)} KiB as wrangler reports it, ${kib(gzipped)} at level 9   (goal ≤ 160 KiB gzip, target ≤ 128 KiB)`,
    );
    const main = worker.files.find((f) => f.endsWith(".js")) ?? "";
    if (existsSync(join(dir, `${main}.map`))) {
      // The source map wrangler just wrote.
      const map = JSON.parse(readFileSync(join(dir, `${main}.map`), "utf8")) as SourceMap;
      const groups = contributors(readFileSync(join(dir, main)), map);
      const sum = groups.reduce((s, g) => s + g.gzip, 0);
      write(
        `  top ${top} contributors (minified bytes from the source map; gzip: each group alone at level 9, an estimate: the ${groups.length} groups sum to ${kib(sum)} against ${kib(gzipped)} together)`,
      );
      for (const g of groups.slice(0, top)) write(row(g));
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
    const core = await browserBundle("src/core/index.ts");
    write(
      `  core alone for a browser (src/core/index.ts): ${kib(core.min)} min, ${kib(core.gzip)} gzip   (goal ≤ 40 KiB gzip)`,
    );
    write("  its top contributors (each group gzipped alone, an estimate)");
    for (const g of core.groups.slice(0, 8)) write(row(g));
    // Informative: what an application that imports one of the core's namespaces ships (with the
    // strict JSON layer every namespace reads through), the rest left out by its bundler.
    write("  the core by namespace: what an app importing only that one ships (with readJson and canonicalJson)");
    for (const name of coreNamespaces()) {
      const part = await browserBundle({
        contents: `export { readJson, canonicalJson, ${name} } from "./src/core/index.ts";`,
      });
      write(row({ group: name, ...part }));
    }
    const client = await browserBundle("src/client/index.ts");
    write(
      `  client for a browser (src/client/index.ts): ${kib(client.min)} min, ${kib(client.gzip)} gzip   (goal ≤ 12 KiB gzip)`,
    );
    return {
      worker: { wranglerGzipKiB: worker.gzipKiB, gzip9: gzipped },
      core: { min: core.min, gzip: core.gzip },
      client: { min: client.min, gzip: client.gzip },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What this file reads of a source map. */
interface SourceMap {
  sources: string[];
  mappings: string;
}

/** One package's or source folder's share of a bundle. */
export interface Contributor {
  group: string;
  min: number;
  gzip: number;
}

/** The figures {@link printBundle} prints, for a caller that compares them. */
export interface BundleFigures {
  worker: { wranglerGzipKiB: number; gzip9: number };
  core: { min: number; gzip: number };
  client: { min: number; gzip: number };
}
