// Bundles the browser extension's service worker and options page from TypeScript into
// examples/browser-extension/dist/, after which the folder loads as it is (--load-extension,
// or "Load unpacked" on chrome://extensions). Manifest V3 forbids evaluated code, so the build
// fails if a bundle could evaluate text. The extension imports the package by its entries'
// names (`toolgate/capability-provider`), resolved to the sources by tsconfig.json's "paths".
import { build, type BuildOptions } from "esbuild";
import { readFileSync } from "node:fs";
import { ROOT } from "./paths.ts";

const extension = `${ROOT}/examples/browser-extension`;

/** Code that evaluates text: refused by the extension pages' CSP (script-src 'self'). */
const EVALUATES = /\beval\s*\(|\bnew\s+Function\s*\(|\bFunction\s*\(\s*["'`]/;

/** The extension's bundles: output name → source. */
export const EXTENSION_ENTRIES: Readonly<Record<string, string>> = {
  "service-worker": `${extension}/src/service-worker.ts`,
  options: `${extension}/src/options.ts`,
};

/** The esbuild options of the extension's bundles (the benchmark builds them too, minified). */
export function extensionBuild(outdir: string): BuildOptions {
  return {
    absWorkingDir: ROOT,
    entryPoints: EXTENSION_ENTRIES,
    outdir,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "chrome116",
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
  };
}

/** Builds the extension; answers its folder. */
export async function buildExtension(): Promise<string> {
  await build(extensionBuild(`${extension}/dist`));
  for (const name of Object.keys(EXTENSION_ENTRIES)) {
    const file = `${extension}/dist/${name}.js`;
    const match = EVALUATES.exec(readFileSync(file, "utf8"));
    if (match !== null) throw new Error(`${file} evaluates text (${match[0]}): Manifest V3 refuses it`);
  }
  return extension;
}
