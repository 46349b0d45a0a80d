// @ts-check
// Runs a TypeScript command on Node 20, which cannot strip types itself: a module hook has esbuild
// strip each .ts module as Node loads it (no bundle), so every module keeps its own path and
// `import.meta.url`. Usage: node tools/run.js FILE.ts [args...] (FILE sees its args in
// process.argv.slice(2)). `importTs` loads a .ts module the same way from plain JavaScript.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { register } from "node:module";
import { resolve } from "node:path";
import { isMainThread } from "node:worker_threads";
import { fileURLToPath, pathToFileURL } from "node:url";

const TS = /\.[cm]?ts$/;
/** Where stripped modules are kept (ignored by git, like the rest of .toolgate/). */
const CACHE = new URL("../.toolgate/ts-cache/", import.meta.url);
const RELATIVE = /^\.{1,2}\//;
/** esbuild's options: imports kept as written, as tsconfig.json's verbatimModuleSyntax has them. */
/** @type {import("esbuild").TransformOptions} */
const STRIP = {
  loader: "ts",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
};

/**
 * Module hook: a relative specifier without an extension, from a .ts module, names a .ts file or
 * a folder's index.ts (the bundler resolution tsconfig.json uses).
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: { parentURL?: string }) => Promise<{ url: string }>} next
 */
export async function resolveHook(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (!RELATIVE.test(specifier) || context.parentURL === undefined || !TS.test(new URL(context.parentURL).pathname))
      throw error;
    for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
      try {
        return await next(candidate, context);
      } catch {
        // try the next form
      }
    }
    throw error;
  }
}

/**
 * Module hook: a .ts file's types stripped by esbuild, as an ES module.
 * @param {string} url
 * @param {{ format?: string | null }} context
 * @param {(url: string, context: { format?: string | null }) => Promise<{ format?: string | null; source?: string | ArrayBuffer | Uint8Array | null; shortCircuit?: boolean }>} next
 */
export async function loadHook(url, context, next) {
  if (!url.startsWith("file:") || !TS.test(new URL(url).pathname)) return next(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, "utf8");
  // Stripped modules are kept by path and content: loading esbuild costs more than the rest of
  // a command's start-up, so it is loaded only for a module that changed.
  const cached = new URL(
    `${createHash("sha256")
      .update(`${JSON.stringify(STRIP)}\0${path}\0${source}`)
      .digest("hex")}.mjs`,
    CACHE,
  );
  try {
    return { format: "module", source: await readFile(cached, "utf8"), shortCircuit: true };
  } catch {
    // not stripped yet
  }
  const { transform } = await import("esbuild");
  const { code } = await transform(source, { ...STRIP, sourcefile: path });
  try {
    await mkdir(CACHE, { recursive: true });
    const temp = new URL(`${cached.pathname}.${process.pid}.tmp`, cached);
    await writeFile(temp, code);
    await rename(temp, cached);
  } catch {
    // a read-only checkout: strip again next time
  }
  return { format: "module", source: code, shortCircuit: true };
}

// Node calls the hooks `resolve` and `load` in its hooks thread.
export { resolveHook as resolve, loadHook as load };

let registered = false;

/**
 * Imports a .ts module (a path or file URL) with the hooks registered.
 * @param {string | URL} file
 * @returns {Promise<Record<string, unknown>>}
 */
export async function importTs(file) {
  if (!registered) {
    register(import.meta.url);
    registered = true;
  }
  const url = file instanceof URL ? file : pathToFileURL(resolve(file));
  return import(url.href);
}

if (isMainThread && process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const [entry, ...args] = process.argv.slice(2);
  if (entry === undefined) {
    process.stderr.write("usage: node tools/run.js FILE.ts [args...]\n");
    process.exit(2);
  }
  process.argv = [process.argv[0] ?? process.execPath, resolve(entry), ...args];
  await importTs(entry);
}
