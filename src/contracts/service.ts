import * as z from "../core/zod";
import { httpSchemas } from "./registry";

/**
 * The gate's own public answers: liveness and this API's description.
 * @module
 */

/** `GET /healthz`. */
export const Health = z.strictObject({ ok: z.literal(true) }).register(httpSchemas, { id: "Health" });

/** `GET /v1/openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiDescription = z
  .looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .register(httpSchemas, { id: "OpenApiDocument" });

/** `GET /v1/consumers/{consumer}/ping`: a bare round trip to the consumer's object. */
export const Pong = z.strictObject({ pong: z.literal("pong") }).register(httpSchemas, { id: "Pong" });
