/**
 * The gate's own public routes: liveness and the OpenAPI document.
 * @module
 */
import { Health, OpenApiDescription } from "../../contracts/service";
import { assetResponse } from "../assets";
import { missingSecrets } from "../required-secrets";
import { handlers, type RouteModule } from "./route";
import { DOCS } from "../../contracts/docs";

export const serviceRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/healthz",
      summary: DOCS
        ? "Liveness; `missing_secrets` names the required Worker secrets the deployment lacks (never a value), when it lacks any."
        : "",
      operation: "none",
      cors: "public",
      response: { status: 200, schema: Health, description: DOCS ? "Serving." : "" },
      problems: [],
      handlers: handlers((c) => {
        const missing = missingSecrets(c.env);
        return c.json(missing.length === 0 ? { ok: true } : { ok: true, missing_secrets: missing });
      }),
    },
    {
      method: "get",
      path: "/v1/openapi.json",
      summary: DOCS ? "This document (a Worker embedding the gate without the ASSETS binding answers 404)." : "",
      operation: "none",
      cors: "public",
      response: { status: 200, schema: OpenApiDescription, description: DOCS ? "OpenAPI 3.1." : "" },
      problems: ["NOT_FOUND"],
      // Built by `npm run build:openapi` from these declarations and the contracts (a test keeps it current)
      // into assets/openapi.json, a static asset: the document stays out of the Worker's bundle.
      handlers: handlers((c) => assetResponse(c.env.ASSETS, "openapi.json", "application/json")),
    },
  ],
};
