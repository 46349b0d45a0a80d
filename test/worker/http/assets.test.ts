import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import doc from "../../../assets/openapi.json";
import { assetResponse } from "../../../src/worker/assets";

describe("static assets (assets/, the ASSETS binding)", () => {
  it("serves the built OpenAPI document through the binding, as the file holds it", async () => {
    const res = await assetResponse(env.ASSETS, "openapi.json", "application/json");
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(await res.json()).toEqual(doc);
  });

  it("answers 404 NOT_FOUND, naming the binding, where a Worker embedding the gate has none", async () => {
    const res = await assetResponse(undefined, "console/script.js", "text/javascript; charset=utf-8");
    expect([res.status, res.headers.get("content-type")]).toEqual([404, "application/problem+json"]);
    expect(await res.json()).toEqual({
      type: "https://toolgate.dev/problems/not-found",
      title: "Not found",
      status: 404,
      code: "NOT_FOUND",
      detail:
        "This deployment serves no console/script.js: bind the gate's assets folder as ASSETS (wrangler.toml [assets]).",
    });
  });

  it("throws (a broken deployment, not a refusal) when the binding lacks a file the gate ships", async () => {
    await expect(assetResponse(env.ASSETS, "missing.json", "application/json")).rejects.toThrow(
      "the asset missing.json answered 404",
    );
  });
});
