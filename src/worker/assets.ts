/**
 * The Worker's static assets (wrangler.toml `[assets]`, the folder `assets/`, binding `ASSETS`):
 * files the gate serves as they are, kept out of the Worker's bundle. Every request runs the
 * Worker first, so these answers carry the gate's own headers (CORS, the console's CSP).
 * - `openapi.json`: the OpenAPI document `npm run build:openapi` writes (`GET /v1/openapi.json`);
 * - `console/script.js`, `console/styles.css`: the approver console's script and style sheet.
 * @module
 */
import { problem, problemResponse } from "./http/problem";

/** The assets' origin inside the binding (any origin works; the path names the file). */
const ASSETS_ORIGIN = "https://assets.invalid/";

/**
 * The asset at `path` with `contentType`. Without the binding (a Worker embedding the gate that
 * did not add `[assets]`) the route does not exist for it: 404 NOT_FOUND, saying what to bind.
 */
export async function assetResponse(assets: Fetcher | undefined, path: string, contentType: string): Promise<Response> {
  if (assets === undefined)
    return problemResponse(
      problem(
        "NOT_FOUND",
        `This deployment serves no ${path}: bind the gate's assets folder as ASSETS (wrangler.toml [assets]).`,
      ),
    );
  const asset = await assets.fetch(`${ASSETS_ORIGIN}${path}`);
  // The files ship with every deployment; one missing means a broken deployment: a bug, not a refusal.
  if (asset.status !== 200) throw new Error(`the asset ${path} answered ${asset.status}`);
  return new Response(asset.body, { headers: { "content-type": contentType } });
}
