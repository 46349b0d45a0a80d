// How the bundle section of `npm run bench` measures (tools/lib/bench-bundle.ts prints):
// - the Worker as `wrangler deploy --dry-run` builds it, with wrangler's own size report;
// - a bundle's contributors, from its source map: each byte of the output attributed to the
//   module it came from, grouped (by package or source folder, or finer), each group's bytes
//   gzipped on their own at level 9 (an estimate: gzipped apart, groups lose the context they
//   share, so the estimates sum to a little more than the whole);
// - a browser bundle of an entry (esbuild, minified ESM), gzipped at level 9.
import { build, type BuildOptions } from "esbuild";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { constants, gzipSync } from "node:zlib";
import { ROOT } from "./paths.ts";

const root = `${ROOT}/`;
const KIB = 1024;
export const gzip9 = (bytes: Uint8Array): number => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).byteLength;
export const kib = (bytes: number): string => `${(bytes / KIB).toFixed(1)} KiB`;

/** The Worker as `wrangler deploy --dry-run` builds it: wrangler's report, the output files, the source map. */
export function wranglerBuild(dir: string): {
  rawKiB: number;
  gzipKiB: number;
  bytes: Buffer;
  files: string[];
  dir: string;
} {
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

/** The path of a source under src/ (`src/…`), or `null` for a package's or the bundler's. */
function sourcePath(path: string): string | null {
  const normal = path.replace(/\\/g, "/");
  if (/node_modules\//.test(normal)) return null;
  return /(?:^|\/)(src\/.*)$/.exec(normal)?.[1] ?? null;
}

/** The group a source belongs to: its npm package, or its folder under src/ (planes one by one). */
export function groupOf(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path.replace(/\\/g, "/"));
  if (pkg?.[1] !== undefined) return pkg[1];
  const src = sourcePath(path);
  if (src === null) return "(wrangler and esbuild glue)";
  const parts = src.split("/").slice(0, -1);
  return parts.slice(0, parts[1] === "worker" && parts[2] === "object" ? 4 : 3).join("/");
}

/** A grouping by file under one folder (`src/worker/features/`): that folder's files one by one, the rest as one group. */
export const fileUnder =
  (folder: string) =>
  (path: string): string => {
    const src = sourcePath(path);
    return src?.startsWith(folder) === true ? src.slice(folder.length) : "(elsewhere)";
  };

/** Groups a module under `folder` by its first folder there (a feature's name), the rest as "(elsewhere)". */
export const folderUnder =
  (folder: string) =>
  (path: string): string => {
    const inside = fileUnder(folder)(path);
    return inside === "(elsewhere)" ? inside : (inside.split("/")[0] ?? inside);
  };

/** One group's share of a bundle. */
export interface Contributor {
  group: string;
  min: number;
  gzip: number;
}

/** What this file reads of a source map. */
export interface SourceMap {
  sources: string[];
  mappings: string;
}

/** Each group's output bytes (from the source map) and their gzip estimate, largest first. */
export function contributors(code: Buffer, map: SourceMap, group: (path: string) => string = groupOf): Contributor[] {
  const text = code.toString("utf8");
  const lines = text.split("\n");
  const slices = new Map<string, string[]>();
  const add = (name: string, piece: string): void => {
    if (piece.length === 0) return;
    const list = slices.get(name) ?? [];
    list.push(piece);
    slices.set(name, list);
  };
  const groups = map.sources.map(group);
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
    .map(([name, pieces]) => {
      const bytes = Buffer.from(pieces.join(""), "utf8");
      return { group: name, min: bytes.byteLength, gzip: gzip9(bytes) };
    })
    .sort((a, b) => b.gzip - a.gzip);
}

/** A browser bundle's size: raw (minified) and gzipped at level 9, and its contributors. */
export interface BrowserBundle {
  min: number;
  gzip: number;
  groups: Contributor[];
}

/**
 * An entry bundled by esbuild for a browser (minified ESM): its bytes raw and gzipped at level 9,
 * its contributors. `entry`: a file, or `{ contents }` (a module's source, resolved from
 * `resolveDir`, the root by default).
 * Packages resolve from this repository's node_modules wherever the entry is.
 */
export async function browserBundle(entry: string | { contents: string; resolveDir?: string }): Promise<BrowserBundle> {
  const input: BuildOptions =
    typeof entry === "string"
      ? { entryPoints: [entry] }
      : {
          stdin: {
            contents: entry.contents,
            resolveDir: entry.resolveDir ?? root,
            sourcefile: "entry.ts",
            loader: "ts",
          },
        };
  const out = await build({
    absWorkingDir: root,
    ...input,
    outdir: "out",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    nodePaths: [join(root, "node_modules")],
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

/** Bundles built as shipped (esbuild options that write into a folder): each output file's size, minified, gzipped at level 9. */
export async function shippedBundles(
  options: BuildOptions,
): Promise<Array<{ file: string; min: number; gzip: number }>> {
  const out = await build({ ...options, minify: true, write: false, logLevel: "warning" });
  return out.outputFiles
    .filter((f) => f.path.endsWith(".js"))
    .map((f) => ({ file: f.path.replace(/^.*\//, ""), min: f.contents.byteLength, gzip: gzip9(f.contents) }));
}
