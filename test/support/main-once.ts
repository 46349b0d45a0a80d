/**
 * Run first before each file of the workerd projects (vitest.config.ts "worker", the reliability
 * suite's "rel-worker"). The pool serves every request to a Durable Object (and every call
 * through `exports`) by importing the Worker's main module through vitest's module runner, and the
 * runner asks this process over the pool's socket, each time, whether the module changed: a round
 * trip per request, about a third of a tool call's time in these tests (9–11 ms a call against
 * 14–15 ms without this). Under `vitest run` (`inject("mainOnce")`) no module changes during the
 * run, so the first import's answer is kept; in watch mode the runner asks as before.
 */
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Whether the Worker's main module may be imported once for the run (`vitest run`). */
    mainOnce: boolean;
  }
}

/** The part of the runner this uses (the pool reaches it as `__vitest_mocker__.moduleRunner`). */
interface Runner {
  import(url: string): Promise<unknown>;
  [KEPT]?: true;
}

const KEPT = Symbol.for("toolgate.mainOnce");
/** The Worker's main module (wrangler.toml `main`), as the pool names it. */
const MAIN = "/src/worker/index.ts";

const runner = (globalThis as { __vitest_mocker__?: { moduleRunner?: Runner } }).__vitest_mocker__?.moduleRunner;
if (inject("mainOnce") && runner !== undefined && runner[KEPT] !== true) {
  const importing = runner.import.bind(runner);
  let main: Promise<unknown> | undefined;
  runner.import = (url: string) => (url.endsWith(MAIN) ? (main ??= importing(url)) : importing(url));
  runner[KEPT] = true;
}
