// What `npm run mcp:conformance` decides before and after the suite runs (tools/mcp-conformance.ts
// is only the wiring): which gate it talks to, whether that gate answers, where its admin token
// is, and the exit status. A problem that keeps the suite from running is one line and exit 2; a
// failed check is exit 1, after the suite's table and a line naming the failed scenarios.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_PORT, gatePort } from "./gate-port.ts";
import { DEV_VARS, readDevVars } from "./wrangler-dev.ts";

/** Every check of every scenario passed. */
export const EXIT_PASSED = 0;
/** Some check failed (or the suite did not report every scenario it ran). */
export const EXIT_FAILED = 1;
/** The suite could not run: no gate, a bad setting, no admin token. */
export const EXIT_CANNOT_RUN = 2;

/** Why the suite cannot run, by a stable code, and the one line the command prints. */
export interface CannotRun {
  ok: false;
  code: "BAD_BASE" | "BAD_PORT" | "NO_GATE" | "NOT_HEALTHY" | "NO_DEV_VARS" | "NO_ADMIN_TOKEN";
  message: string;
}

/** The environment variables the command reads. */
export type CommandEnv = Readonly<Record<string, string | undefined>>;

const PREFIX = "mcp conformance:";

/** How to point the command elsewhere, ending every line about a gate it cannot use. */
const HOW_TO_POINT = `start one with \`npm start\` (it serves http://127.0.0.1:${DEFAULT_PORT}, or the port TOOLGATE_PORT names), or point this command at a running gate with TOOLGATE_PORT=<port> or TOOLGATE_BASE=<url>`;

/** `text` as a URL, or null (the types in use here lack `URL.canParse`). */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * The gate's base URL (no trailing slash): TOOLGATE_BASE, else http://127.0.0.1:TOOLGATE_PORT,
 * else `npm start`'s default port. An empty variable counts as not set.
 */
export function conformanceBase(env: CommandEnv): { ok: true; base: string } | CannotRun {
  const base = env.TOOLGATE_BASE;
  if (base !== undefined && base !== "") {
    const url = parseUrl(base);
    // Plain http only: the loopback proxy in front of the suite forwards over http.
    if (url === null || url.protocol !== "http:" || url.search !== "" || url.hash !== "")
      return {
        ok: false,
        code: "BAD_BASE",
        message: `${PREFIX} TOOLGATE_BASE must be the gate's http URL, such as http://127.0.0.1:${DEFAULT_PORT}, not ${JSON.stringify(base)}`,
      };
    return { ok: true, base: `${url.origin}${url.pathname}`.replace(/\/+$/, "") };
  }
  const port = gatePort(env.TOOLGATE_PORT === "" ? undefined : env.TOOLGATE_PORT);
  return port.ok
    ? { ok: true, base: `http://127.0.0.1:${port.port}` }
    : { ok: false, code: "BAD_PORT", message: `${PREFIX} ${port.message}` };
}

/** Why a probe got no answer, in a few words. */
function noAnswer(error: unknown, timeoutMs: number): string {
  if (typeof error === "object" && error !== null && "name" in error && error.name === "TimeoutError")
    return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "unknown host";
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Whether a gate answers GET /healthz at `base` with 200 within `timeoutMs`. */
export async function probeGate(base: string, timeoutMs = 2_000): Promise<{ ok: true } | CannotRun> {
  let status: number;
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    status = res.status;
    await res.body?.cancel();
  } catch (error) {
    return {
      ok: false,
      code: "NO_GATE",
      message: `${PREFIX} no gate answers at ${base} (GET /healthz: ${noAnswer(error, timeoutMs)}); ${HOW_TO_POINT}`,
    };
  }
  return status === 200
    ? { ok: true }
    : {
        ok: false,
        code: "NOT_HEALTHY",
        message: `${PREFIX} GET ${base}/healthz answered ${status}, not 200: no healthy gate there; ${HOW_TO_POINT}`,
      };
}

/** The secrets file of the gate: TOOLGATE_DEV_VARS (as `npm start` reads it), else `.dev.vars`. */
export function devVarsPath(env: CommandEnv): string {
  const named = env.TOOLGATE_DEV_VARS;
  return named === undefined || named === "" ? DEV_VARS : resolve(named);
}

/** The admin token in the secrets file at `path`, or one line saying what to do. */
export function adminToken(path: string): { ok: true; token: string } | CannotRun {
  const hint =
    "`npm start` writes it there; start the gate with `npm start`, or name its secrets file in TOOLGATE_DEV_VARS";
  if (!existsSync(path))
    return { ok: false, code: "NO_DEV_VARS", message: `${PREFIX} no ${path} to read the admin token from: ${hint}` };
  const token = readDevVars(path).TOOLGATE_ADMIN_TOKEN;
  return token === undefined || token === ""
    ? { ok: false, code: "NO_ADMIN_TOKEN", message: `${PREFIX} ${path} has no TOOLGATE_ADMIN_TOKEN: ${hint}` }
    : { ok: true, token };
}

/**
 * The exit status and the summary line of a run: `results` (scenario → passed) and the suite's
 * own exit code (null: it ended by a signal). 0 only when at least one scenario ran, every one
 * passed and the suite agrees (a scenario that crashed before writing its checks is missing from
 * `results`, not false, and only the suite's exit code tells).
 */
export function conformanceVerdict(
  results: Readonly<Record<string, boolean>>,
  suiteExit: number | null,
): { status: typeof EXIT_PASSED | typeof EXIT_FAILED; line: string } {
  const names = Object.keys(results);
  const failed = names.filter((name) => results[name] !== true);
  if (names.length === 0)
    return { status: EXIT_FAILED, line: `${PREFIX} the suite reported no scenario (its output is above)` };
  if (failed.length > 0)
    return {
      status: EXIT_FAILED,
      line: `${PREFIX} ${names.length - failed.length} of ${names.length} scenarios passed; failed: ${failed.join(", ")}`,
    };
  if (suiteExit !== 0)
    return {
      status: EXIT_FAILED,
      line: `${PREFIX} all ${names.length} scenarios reported passed, but the suite ${suiteExit === null ? "was stopped by a signal" : `exited ${suiteExit}`} (its output is above)`,
    };
  return { status: EXIT_PASSED, line: `${PREFIX} all ${names.length} scenarios passed` };
}
