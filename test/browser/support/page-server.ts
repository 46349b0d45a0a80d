import { build } from "esbuild";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Bundles a browser entry with esbuild (browser platform, so any Node import fails the build)
 * and serves it from a one-page server on 127.0.0.1.
 */
export async function servePage(entry: string, extraRoutes: Record<string, string> = {}): Promise<PageServer> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const script = result.outputFiles[0]?.text ?? "";
  const html = `<!doctype html><meta charset="utf-8"><title>toolgate</title><script type="module" src="/bundle.js"></script>`;
  const routes: Record<string, [string, string]> = {
    "/": ["text/html; charset=utf-8", html],
    "/bundle.js": ["text/javascript; charset=utf-8", script],
  };
  for (const [path, body] of Object.entries(extraRoutes)) routes[path] = ["application/json; charset=utf-8", body];
  const server: Server = createServer((req, res) => {
    const route = routes[(req.url ?? "/").split("?")[0] ?? "/"];
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": route[0] }).end(route[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
