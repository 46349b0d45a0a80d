/**
 * The OpenAPI document, judged by third parties: the committed file is what the contracts give
 * (tools/lib/openapi.ts), `@redocly/cli lint` (its recommended rules) finds nothing, and the
 * types `openapi-typescript` generates with its default options compile the requests `npm start`
 * prints (the README's), the requests and answers of test/openapi-types and the example host
 * (examples/openapi-host), while refusing the requests the gate refuses.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { OPENAPI_FILE, openApiText } from "../../tools/lib/openapi";
import { setUpDemo } from "../../tools/lib/demo-setup";

const ROOT = resolve(__dirname, "..", "..");
const TYPES = join(ROOT, "test", "openapi-types");

/** Runs a Node script of a dev dependency; its exit code and output. */
function run(
  args: readonly string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; out: string } {
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env } });
  return { status: child.status, stdout: child.stdout, out: `${child.stdout}${child.stderr}` };
}

/** One request of the demo: what `npm start` sends while setting up, and what its curl lines send. */
interface DemoRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** The requests of `npm start`'s set-up (recorded) and of the curl lines it prints (parsed). */
async function demoRequests(): Promise<DemoRequest[]> {
  const sent: DemoRequest[] = [];
  const call = async (_base: string, method: string, path: string, _token: string, body: unknown) => {
    sent.push({ method, path, body });
    return { secret: `tg_secret_${sent.length}`, credential_id: `cred_${String(sent.length).padStart(16, "0")}` };
  };
  const state = mkdtempSync(join(tmpdir(), "toolgate-openapi-"));
  const issuedPath = join(state, "issued.json");
  const text: string = await setUpDemo({
    base: "http://127.0.0.1:8787",
    admin: "admin",
    demoBase: "http://127.0.0.1:8789",
    token: "t",
    devVarsPath: ".dev.vars",
    issuedPath,
    call,
  }).finally(() => rmSync(state, { recursive: true, force: true }));
  const vars: Record<string, string> = { TG: "/v1/consumers/demo", REF: "/v1/consumers/tenant-a" };
  const printed: DemoRequest[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const target = /^curl -s(?: -w '\\n')?(?: -i)?(?: -X (PUT|POST|DELETE))? "?\$(TG|REF)([^ "]*)"?/.exec(line);
    if (target === null) continue;
    const path = `${vars[target[2] as string]}${(target[3] as string).split("?")[0]}`;
    const inline = / -d '([^']*)'/.exec(line);
    if (inline !== null) printed.push({ method: target[1] ?? "POST", path, body: JSON.parse(inline[1] as string) });
    // A body in double quotes takes shell variables (an approval's digest picked from the list): as the shell sends it.
    const quoted = / -d "((?:[^"\\]|\\.)*)"/.exec(line);
    if (quoted !== null) {
      const body = (quoted[1] as string).replace(/\\(.)/g, "$1").replace(/\$[A-Z_]+/g, "x");
      printed.push({ method: target[1] ?? "POST", path, body: JSON.parse(body) });
    }
    if (line.endsWith("--data-binary @- <<'EOF'")) {
      const end = lines.indexOf("EOF", i);
      printed.push({ method: target[1] ?? "POST", path, body: JSON.parse(lines.slice(i + 1, end).join("\n")) });
    }
  }
  return [...sent, ...printed];
}

/** The document's path template a concrete path matches. */
function template(paths: readonly string[], path: string): string {
  const found = paths.find((t) => new RegExp(`^${t.replace(/\{[a-z_]+\}/g, "[^/]+")}$`).test(path));
  if (found === undefined) throw new Error(`no documented path for ${path}`);
  return found;
}

describe("the OpenAPI document", () => {
  it("is what the contracts give (else: npm run build:openapi)", async () => {
    expect(await openApiText()).toBe(readFileSync(OPENAPI_FILE, "utf8"));
  }, 60_000);

  it("passes @redocly/cli lint (recommended rules) with 0 errors and 0 warnings", () => {
    const lint = run([join(ROOT, "node_modules/@redocly/cli/bin/cli.js"), "lint", OPENAPI_FILE, "--format=json"], {
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
    });
    expect(JSON.parse(lint.stdout).totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(lint.status).toBe(0);
  }, 60_000);

  it("generates types (openapi-typescript, default options) that compile npm start's requests, the docs' requests and answers, and the example host", async () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, "utf8"));
    const schema = astToString(await openapiTS(doc));
    mkdirSync(join(TYPES, "generated"), { recursive: true });
    writeFileSync(join(TYPES, "generated", "schema.d.ts"), schema);
    writeFileSync(join(ROOT, "examples", "openapi-host", "schema.d.ts"), schema);

    const requests = await demoRequests();
    const paths = Object.keys(doc.paths);
    const typed = requests.map(
      (r, i) =>
        `export const request${i} = ${JSON.stringify(r.body)} satisfies Body<${JSON.stringify(template(paths, r.path))}, ${JSON.stringify(r.method.toLowerCase())}>;`,
    );
    writeFileSync(
      join(TYPES, "generated", "demo-requests.ts"),
      `import type { Body } from "../helpers";\n\n${typed.join("\n")}\n`,
    );
    // Every request kind npm start sends or prints: the consumers, the secret, both tool definitions,
    // the credentials, the tool calls, the approval decision and MCP's initialize.
    expect(
      requests.map((r) => `${r.method} ${template(paths, r.path)}`).filter((v, i, all) => all.indexOf(v) === i),
    ).toEqual([
      "PUT /v1/consumers/{consumer}",
      "PUT /v1/consumers/{consumer}/secrets/{name}",
      "PUT /v1/consumers/{consumer}/tools/{name}",
      "POST /v1/consumers/{consumer}/credentials",
      "POST /v1/consumers/{consumer}/tool-calls",
      "POST /v1/consumers/{consumer}/approvals/{approval_id}",
      "POST /v1/consumers/{consumer}/mcp",
    ]);

    const tsc = run([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(TYPES, "tsconfig.json")]);
    expect(tsc.out).toBe("");
    expect(tsc.status).toBe(0);
  }, 120_000);
});
