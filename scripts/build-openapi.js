// Builds the OpenAPI 3.1 document (assets/openapi.json) from the route modules'
// operation lists and the zod contracts, so the Worker serves a file instead of generating it
// (zod's JSON Schema code stays out of its bundle). `--check` exits 1 when the committed file is
// not what the sources give (test/cli/openapi.test.ts runs the same comparison).
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const OPENAPI_FILE = `${root}assets/openapi.json`;

/** The Workers runtime's own module, for code that is only read here, never run as a Worker. */
const workersRuntime = {
  name: "workers-runtime",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "workers-runtime" }));
    b.onLoad({ filter: /.*/, namespace: "workers-runtime" }, () => ({
      contents: "export class DurableObject {} export class WorkerEntrypoint {} export class WorkflowEntrypoint {} export const env = {};",
      loader: "js",
    }));
  },
};

const ENTRY = `
import { openApiDocument } from "./src/worker/openapi/document";
import { operations } from "./src/worker/openapi/operations";
import { GATE_VERSION } from "./src/worker/version";
export const text = JSON.stringify(openApiDocument(operations, GATE_VERSION), null, 2) + "\\n";
`;

/** The document's text, as the sources give it now. */
export async function openApiText() {
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
    writeFileSync(join(dir, "document.mjs"), out.outputFiles[0].text);
    const mod = await import(pathToFileURL(join(dir, "document.mjs")).href);
    return mod.text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await openApiText();
  if (process.argv.includes("--check")) {
    const current = readFileSync(OPENAPI_FILE, "utf8");
    if (current !== text) {
      console.error("assets/openapi.json is not what the contracts give: run `npm run build:openapi`.");
      process.exit(1);
    }
    console.log("openapi.json is current");
  } else {
    writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote assets/openapi.json (${text.length} bytes)`);
  }
}
