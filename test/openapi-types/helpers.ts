/**
 * Type helpers over the types `openapi-typescript` generates from the gate's document
 * (./generated/schema.d.ts, written by test/cli/openapi.test.ts; not committed).
 */
import type { paths } from "./generated/schema";

type Op<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type Body<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;

/** The JSON (or problem+json) body of one answer of an operation. */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number | "4XX" | "default"> =
  Op<P, M> extends { responses: infer R }
    ? S extends keyof R
      ? R[S] extends { content: { "application/json": infer B } }
        ? B
        : R[S] extends { content: { "application/problem+json": infer B } }
          ? B
          : never
      : never
    : never;

/** The headers of one answer of an operation. */
export type AnswerHeaders<P extends keyof paths, M extends keyof paths[P], S extends number> =
  Op<P, M> extends { responses: infer R }
    ? S extends keyof R
      ? R[S] extends { headers: infer H }
        ? H
        : never
      : never
    : never;
