// The OpenAPI 3.1 document (assets/openapi.json) from the route modules'
// operation lists and the zod contracts, so the Worker serves a file instead of generating it
// (zod's JSON Schema code stays out of its bundle); test/cli/openapi.test.ts compares it with the
// committed file.
import { build, type Plugin } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./paths.ts";

const root = `${ROOT}/`;
export const OPENAPI_FILE = `${root}assets/openapi.json`;

/** The Workers runtime's own module, for code that is only read here, never run as a Worker. */
const workersRuntime: Plugin = {
  name: "workers-runtime",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "workers-runtime" }));
    b.onLoad({ filter: /.*/, namespace: "workers-runtime" }, () => ({
      contents:
        "export class DurableObject {} export class WorkerEntrypoint {} export class WorkflowEntrypoint {} export const env = {};",
      loader: "js",
    }));
  },
};

const ENTRY = `
import { openApiDocument } from "./src/worker/http/openapi/document";
import { operations } from "./src/worker/http/openapi/operations";
import { GATE_VERSION } from "./src/worker/version";
export const text = JSON.stringify(openApiDocument(operations, GATE_VERSION), null, 2) + "\\n";
`;

/** The document's text, as the sources give it now. */
export async function openApiText(): Promise<string> {
  const out = await build({
    absWorkingDir: root,
    stdin: { contents: ENTRY, resolveDir: root, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    plugins: [workersRuntime],
    logLevel: "error",
  });
  // Imported from a scratch file (not a data: URL) so an error's stack names real lines.
  const dir = mkdtempSync(join(tmpdir(), "toolgate-openapi-"));
  try {
    writeFileSync(join(dir, "document.mjs"), out.outputFiles[0]?.text ?? "");
    const mod = (await import(pathToFileURL(join(dir, "document.mjs")).href)) as { text: string };
    return mod.text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
