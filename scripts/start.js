// `npm start`: runs the gate under `wrangler dev` with local persistence in .toolgate/state,
// behind the local edge on 127.0.0.1:8787 (strict HTTP/1.1, as Cloudflare's edge in production;
// see scripts/local-edge.js), creates the demo consumers and prints ready-to-paste curl lines.
// Also exports the helpers the black-box test and the HTTP benchmark use to run wrangler dev.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startLocalEdge } from "./local-edge.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * The secrets a local gate needs, each random (32 bytes, base64url: 43 characters): the admin
 * token, the credential tag key and the key that signs HTTP tool requests.
 */
export const SECRET_NAMES = ["TOOLGATE_ADMIN_TOKEN", "TOOLGATE_TOKEN_KEY", "TOOLGATE_SIGNING_KEY"];

/** A fresh random value for each of {@link SECRET_NAMES}. */
export function freshSecrets() {
  return Object.fromEntries(SECRET_NAMES.map((name) => [name, randomBytes(32).toString("base64url")]));
}

/**
 * Writes `bindings` to a new env file (mode 0600, in a new private 0700 folder) for
 * `wrangler dev --env-file`; answers its path and a function that removes it. Names are
 * upper-case identifiers; values may not hold whitespace, quotes, `$`, `#` or backslashes
 * (dotenv would reinterpret them), so a value is always read back exactly.
 */
export function writeEnvFile(bindings) {
  const lines = Object.entries(bindings).map(([name, value]) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`env file: bad binding name ${JSON.stringify(name)}`);
    if (typeof value !== "string" || !/^[^\s'"`$#\\]*$/.test(value)) throw new Error(`env file: the value of ${name} cannot be written safely`);
    return `${name}=${value}\n`;
  });
  const dir = mkdtempSync(join(tmpdir(), "toolgate-env-"));
  const path = join(dir, "dev.env");
  writeFileSync(path, lines.join(""), { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The command line of `wrangler dev` (after `node`): never a secret, only the path of the env
 * file that holds them (`envFile`; none: wrangler reads `.dev.vars`).
 */
export function wranglerDevArgs({ port, persistTo, envFile = null }) {
  const args = [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo, "--show-interactive-dev-session=false"];
  return envFile === null ? args : [...args, "--env-file", envFile];
}

/**
 * Starts `wrangler dev` on 127.0.0.1:port in its own process group. `secrets` (bindings such as
 * `TOOLGATE_ADMIN_TOKEN` or `TOOLGATE_DOWNSTREAM_URL`) reach the Worker through a 0600 env file
 * (`--env-file`), never the command line, which `ps` shows to every user of the machine;
 * without `secrets` wrangler reads the local `.dev.vars`. The file is removed when wrangler
 * exits. `spawnProcess` is `child_process.spawn` (a test passes a recorder).
 * Answers { child, stop(), kill(), output() }.
 */
export function startWranglerDev({ port, persistTo, secrets = null, inherit = false, spawnProcess = spawn }) {
  const envFile = secrets === null ? null : writeEnvFile(secrets);
  let child;
  try {
    child = spawnProcess(process.execPath, wranglerDevArgs({ port, persistTo, envFile: envFile?.path ?? null }), {
      cwd: ROOT,
      detached: !inherit,
      stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
      // Bindings come from the env file or .dev.vars only, never from this process's environment.
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true", CLOUDFLARE_INCLUDE_PROCESS_ENV: "false" },
    });
  } catch (error) {
    envFile?.remove();
    throw error;
  }
  child.once("exit", () => envFile?.remove());
  let log = "";
  child.stdout?.on("data", (d) => (log = (log + d).slice(-20_000)));
  child.stderr?.on("data", (d) => (log = (log + d).slice(-20_000)));
  const signal = (sig) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      if (inherit) child.kill(sig);
      else process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const exited = new Promise((r) => child.once("exit", r));
  return {
    child,
    output: () => log,
    /** SIGKILL the whole process group (a crash, for restart tests). */
    kill: async () => {
      signal("SIGKILL");
      await exited;
    },
    /** SIGTERM, then SIGKILL after 5 s. */
    stop: async () => {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls GET /healthz until it answers 200; answers the milliseconds it took. */
export async function waitHealthy(base, timeoutMs = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return Date.now() - started;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`wrangler dev did not become healthy at ${base} within ${timeoutMs} ms`);
}

/** Calls the gate as admin or with a credential; throws on an unexpected status. */
export async function call(base, method, path, token, body, expected = [200, 201, 204]) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === "" ? null : JSON.parse(text);
}

/**
 * Reads the local `.dev.vars` (creating it with mode 0600 if missing) and adds a line with a
 * fresh random value for each of {@link SECRET_NAMES} it lacks; answers the admin token. A key
 * shorter than 32 characters is refused (the Worker would admit no credential with it).
 */
export function ensureDevVars(path = join(ROOT, ".dev.vars")) {
  if (!existsSync(path)) writeFileSync(path, "", { mode: 0o600 });
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const text = readFileSync(path, "utf8");
  const value = (name) => new RegExp(`^${name}=(.+)$`, "m").exec(text)?.[1].trim().replace(/^"|"$/g, "");
  const fresh = freshSecrets();
  const missing = SECRET_NAMES.filter((name) => value(name) === undefined);
  if (missing.length > 0) {
    const lead = text === "" || text.endsWith("\n") ? "" : "\n";
    appendFileSync(path, lead + missing.map((name) => `${name}=${fresh[name]}\n`).join(""));
    console.log(`toolgate: added ${missing.join(", ")} to ${path} (new random values)`);
  }
  for (const name of ["TOOLGATE_TOKEN_KEY", "TOOLGATE_SIGNING_KEY"]) {
    const key = value(name) ?? fresh[name];
    if (key.length < 32) throw new Error(`${path}: ${name} is shorter than 32 characters; delete its line to get a new one`);
  }
  return value("TOOLGATE_ADMIN_TOKEN") ?? fresh.TOOLGATE_ADMIN_TOKEN;
}

async function main() {
  const port = Number(process.env.TOOLGATE_PORT ?? 8787);
  const base = `http://127.0.0.1:${port}`;
  const admin = ensureDevVars();
  const persistTo = join(ROOT, ".toolgate", "state");
  mkdirSync(persistTo, { recursive: true });
  const inner = await freePort();
  const dev = startWranglerDev({ port: inner, persistTo, inherit: true });
  const edge = await startLocalEdge({ port, target: { host: "127.0.0.1", port: inner } });
  const stopAll = () => void Promise.all([dev.stop(), edge.close()]).then(() => process.exit(0));
  process.on("SIGINT", stopAll);
  process.on("SIGTERM", stopAll);
  dev.child.once("exit", (code) => process.exit(code ?? 1));
  await waitHealthy(base);

  const tools = ["get_order", "create_refund_draft"];
  // The reference's orders live in tenants tenant-a and tenant-b; tenant = consumer, so the
  // demo catalog answers ORDER-7 for tenant-a. `demo` is the same catalog with no orders of its own.
  for (const consumer of ["demo", "tenant-a"]) {
    await call(base, "PUT", `/v1/consumers/${consumer}`, admin, { tools, approver_subjects: ["human-reviewer-1"] });
  }
  const c = "tenant-a";
  const agent = (await call(base, "POST", `/v1/consumers/${c}/credentials`, admin, { kind: "agent" })).secret;
  const approver = (await call(base, "POST", `/v1/consumers/${c}/credentials`, admin, { kind: "approver", subject_id: "human-reviewer-1" })).secret;
  const auditor = (await call(base, "POST", `/v1/consumers/${c}/credentials`, admin, { kind: "auditor" })).secret;
  const ctx = (callId, key) =>
    JSON.stringify({ call_id: callId, operation_id: `op-${callId}`, idempotency_key: key, provider: "openai", api_family: "responses", response_id: "resp-1", adapter_revision: "openai-responses-v1" });
  const who = '{"subject_id":"user-1","roles":[]}';
  const read = `{"principal":${who},"proposal":{"name":"get_order","arguments":{"order_ref":"ORDER-7"}},"context":${ctx("call-1", null)}}`;
  const write = `{"principal":${who},"proposal":{"name":"create_refund_draft","arguments":{"order_ref":"ORDER-7","reason":"duplicate"}},"context":${ctx("call-2", "refund-1")}}`;
  const json = "-H 'content-type: application/json'";
  console.log(`
toolgate is running at ${base} (state in .toolgate/state; admin token and keys in .dev.vars).
Consumers "demo" and "tenant-a" have the demo catalog; the reference's orders belong to tenant-a.
Paste these lines into a shell:

export TG=${base}/v1/consumers/${c}
export AGENT=${agent}
export APPROVER=${approver}
export AUDITOR=${auditor}

# agent: read an order
curl -s $TG/tool-calls -H "authorization: Bearer $AGENT" ${json} -d '${read}'
# agent: a write needs approval (answers APPROVAL_REQUIRED and an approval_id)
curl -s $TG/tool-calls -H "authorization: Bearer $AGENT" ${json} -d '${write}'
# approver: see what is pending (approval_id and the approval_digest computed for you)
curl -s "$TG/approvals?state=pending" -H "authorization: Bearer $APPROVER"
# approver: approve within 60 s, with the id and digest shown above
curl -s $TG/approvals/APPROVAL_ID -H "authorization: Bearer $APPROVER" ${json} -d '{"decision":"approve","approval_digest":"DIGEST"}'
# agent: the same call again now runs, once; repeat it to see local_replay
curl -s $TG/tool-calls -H "authorization: Bearer $AGENT" ${json} -d '${write}'
# auditor: read the audit chain (follow next_cursor with ?cursor=…) and verify it (follow next_cursor to the head)
curl -s "$TG/audit?limit=50" -H "authorization: Bearer $AUDITOR"
curl -s $TG/audit/verify -H "authorization: Bearer $AUDITOR"

Press Ctrl-C to stop.
`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`toolgate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
