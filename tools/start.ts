// `npm start`: runs the gate under `wrangler dev` with local persistence in .toolgate/state,
// behind the local edge on 127.0.0.1:8787 (strict HTTP/1.1, as Cloudflare's edge in production;
// see tools/lib/local-edge.ts), and the demo service (tools/lib/demo-service.ts) on a free port of
// 127.0.0.1; creates the demo consumers, defines two tools as data on "demo" (tools/lib/demo-setup.ts)
// and prints ready-to-paste curl lines with new credentials, having revoked those the previous
// start printed (their ids are kept in the state folder: tools/lib/credentials.ts).
// TOOLGATE_PORT picks another public port; TOOLGATE_STATE_DIR another persistence folder and
// TOOLGATE_DEV_VARS another secrets file than .dev.vars (a test runs the whole stack this way
// without touching a developer's state or secrets).
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { issuedPath } from "./lib/credentials.ts";
import { startDemoService } from "./lib/demo-service.ts";
import { setUpDemo } from "./lib/demo-setup.ts";
import { writeFeaturesIndex } from "./lib/features-index.ts";
import { gatePort } from "./lib/gate-port.ts";
import { startLocalEdge } from "./lib/local-edge.ts";
import { ROOT } from "./lib/paths.ts";
import {
  assertPortFree,
  call,
  DEV_VARS,
  ensureDevVars,
  freePort,
  readDevVars,
  startWranglerDev,
  waitHealthy,
} from "./lib/wrangler-dev.ts";

/** What `main` started, stopped in reverse order on exit or failure. */
const started: Array<() => Promise<unknown>> = [];

async function stopStarted(): Promise<void> {
  for (const stop of started.splice(0).reverse()) await stop().catch(() => {});
}

async function main(): Promise<void> {
  const chosen = gatePort(process.env.TOOLGATE_PORT);
  if (!chosen.ok) throw new Error(chosen.message);
  const { port } = chosen;
  await assertPortFree(port);
  // A feature folder added since the last run is registered before the Worker is built.
  if (await writeFeaturesIndex()) console.log("registered the feature folders in src/worker/features/index.ts");
  const base = `http://127.0.0.1:${port}`;
  const devVars = process.env.TOOLGATE_DEV_VARS === undefined ? DEV_VARS : resolve(process.env.TOOLGATE_DEV_VARS);
  const admin = ensureDevVars(devVars);
  const vars = readDevVars(devVars);
  if (vars.TOOLGATE_ALLOW_LOOPBACK_TARGETS !== "1") {
    throw new Error(
      `${devVars} sets TOOLGATE_ALLOW_LOOPBACK_TARGETS to "${vars.TOOLGATE_ALLOW_LOOPBACK_TARGETS}": the demo's tools call the demo service over http on 127.0.0.1; set it to 1 or delete its line`,
    );
  }
  // The demo service holds only what any downstream may: where the gate publishes the demo
  // consumer's public key (fetched at its first request; docs/http-tools.md), and the bearer
  // token its write requires (stored in the gate as the consumer secret the tool names).
  const token = randomBytes(32).toString("base64url");
  const service = await startDemoService({ keys: { demo: `${base}/v1/consumers/demo/signing-keys` }, token });
  started.push(() => service.close());
  const persistTo =
    process.env.TOOLGATE_STATE_DIR === undefined
      ? join(ROOT, ".toolgate", "state")
      : resolve(process.env.TOOLGATE_STATE_DIR);
  mkdirSync(persistTo, { recursive: true });
  const inner = await freePort();
  // wrangler reads .dev.vars by itself; another secrets file is named to it (`--env-file`).
  const dev = startWranglerDev({
    port: inner,
    persistTo,
    inherit: true,
    envFile: devVars === DEV_VARS ? null : devVars,
  });
  started.push(() => dev.stop());
  // Whatever ends this process, wrangler's process group (workerd included) ends with it.
  process.once("exit", () => {
    try {
      if (dev.child.pid !== undefined) process.kill(-dev.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
  const edge = await startLocalEdge({ port, target: { host: "127.0.0.1", port: inner } });
  started.push(() => edge.close());
  const stopAll = () => void stopStarted().then(() => process.exit(0));
  process.on("SIGINT", stopAll);
  process.on("SIGTERM", stopAll);
  dev.child.once("exit", (code: number | null) => void stopStarted().then(() => process.exit(code ?? 1)));
  await waitHealthy(base);
  const statePath = relative(ROOT, persistTo) || persistTo;
  console.log(
    await setUpDemo({
      base,
      admin,
      demoBase: service.base,
      token,
      devVarsPath: devVars,
      statePath,
      issuedPath: issuedPath(persistTo),
      call,
    }),
  );
  console.log(
    vars.TOOLGATE_OTLP_ENDPOINT === undefined
      ? "traces: off; add TOOLGATE_OTLP_ENDPOINT=http://127.0.0.1:4318/v1/traces to .dev.vars to export each tool call's spans (docs/traces.md)"
      : `traces: each tool call's spans go to ${vars.TOOLGATE_OTLP_ENDPOINT} (docs/traces.md)`,
  );
}

main().catch(async (error: unknown) => {
  console.error(`toolgate: ${error instanceof Error ? error.message : String(error)}`);
  await stopStarted();
  process.exit(1);
});
