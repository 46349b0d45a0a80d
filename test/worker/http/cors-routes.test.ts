import { describe, expect, it } from "vitest";
import { CorsRoutes } from "../../../src/worker/http/cors";
import { operations } from "../../../src/worker/http/openapi/operations";

// What CORS each path offers (docs/http-api.md, "HTTP conventions"): expected values from that table.
const routes = new CorsRoutes(operations);

describe("CorsRoutes: a path's CORS offer, read from the operations list", () => {
  it("offers a consumer route to its consumer's origins, with the methods a consumer credential may call", () => {
    expect(routes.route("/v1/consumers/acme/tool-calls")).toEqual({
      kind: "consumer",
      consumer: "acme",
      methods: ["POST"],
    });
    // Again: the answer kept for the path.
    expect(routes.route("/v1/consumers/acme/tool-calls")).toEqual({
      kind: "consumer",
      consumer: "acme",
      methods: ["POST"],
    });
    expect(routes.route("/v1/consumers/acme/tool-calls/status")).toEqual({
      kind: "consumer",
      consumer: "acme",
      methods: ["POST"],
    });
    expect(routes.route("/v1/consumers/acme/approvals/apr_0123")).toEqual({
      kind: "consumer",
      consumer: "acme",
      methods: ["GET", "POST"],
    });
  });

  it("decodes the consumer segment as the router does; a segment naming no consumer allows no origin", () => {
    expect(routes.route("/v1/consumers/ac%6De/tool-calls")).toEqual({
      kind: "consumer",
      consumer: "acme",
      methods: ["POST"],
    });
    expect(routes.route("/v1/consumers/%E0%A4%A/tool-calls")).toEqual({
      kind: "consumer",
      consumer: "",
      methods: ["POST"],
    });
  });

  it("reads the public documents from their declarations (cors: public), the three the HTTP API lists", () => {
    expect(operations.filter((op) => op.cors === "public").map((op) => `${op.method} ${op.path}`)).toEqual([
      "get /healthz",
      "get /v1/openapi.json",
      "get /v1/audit/verifier-keys",
    ]);
    expect(routes.route("/v1/openapi.json")).toEqual({ kind: "public", methods: ["GET"] });
  });

  it("offers the public documents to any origin, and never an admin-only route", () => {
    expect(routes.route("/healthz")).toEqual({ kind: "public", methods: ["GET"] });
    expect(routes.route("/v1/audit/verifier-keys")).toEqual({ kind: "public", methods: ["GET"] });
    expect(routes.route("/v1/consumers/acme/credentials")).toEqual({ kind: "closed" });
  });

  it("leaves alone a path no operation has: an empty segment, a trailing slash, one segment more or less, another literal", () => {
    for (const path of [
      "/v1/consumers//tool-calls",
      "/v1/consumers/acme/tool-calls/",
      "/v1/consumers/acme/tool-calls/status/x",
      "/v1/consumers/acme",
      "/v1/consumers/acme/tool-callz",
      "/console",
      "/",
    ]) {
      expect([path, routes.route(path)]).toEqual([path, path === "/v1/consumers/acme" ? { kind: "closed" } : null]);
    }
  });
});
