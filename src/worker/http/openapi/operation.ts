import type * as z from "../../../core/zod";
import type { Operation } from "../../../contracts/access";
import type { ProblemCode } from "../problem";

/** A header of a request or an answer, as the OpenAPI document shows it. */
export interface HeaderDoc {
  readonly description: string;
  readonly schema: Record<string, unknown>;
  /** An answer header that is always sent (request headers are always optional). */
  readonly required?: boolean;
}

/** One successful answer of an operation. */
export interface ResponseDoc {
  readonly status: number;
  readonly description: string;
  /** The body's contract (a registered schema); absent: no body, or `text` below. */
  readonly schema?: z.ZodMiniType;
  /** A body that is not JSON: its media type (the body is then a string); with `schema`, the other form the client may accept. */
  readonly text?: "text/event-stream" | "text/html" | "application/x-ndjson";
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
}

/** One operation as the OpenAPI document shows it: the documentation part of a route's declaration (../routes/route.ts). */
export interface OperationDoc {
  readonly method: "get" | "put" | "post" | "patch" | "delete";
  /** OpenAPI path template, e.g. `/v1/consumers/{consumer}`. */
  readonly path: string;
  readonly summary: string;
  /** The operation in the access table (who may call it), or `none` for a public route. */
  readonly operation: Operation | "none";
  readonly request?: z.ZodMiniType;
  /** The request body's media type when it is not plain JSON (an OAuth form, a JSON Merge Patch). */
  readonly requestMedia?: "application/x-www-form-urlencoded" | "application/merge-patch+json";
  /** The main successful answer; `alsoResponses` lists the others (a 202, the page shown again). */
  readonly response?: ResponseDoc;
  readonly alsoResponses?: readonly ResponseDoc[];
  readonly query?: Readonly<Record<string, { readonly description: string; readonly schema: Record<string, unknown> }>>;
  /** Request headers the operation reads (never `Authorization`: the security scheme documents it). */
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
  readonly problems: readonly ProblemCode[];
  /** The body of this operation's problems when it is not plain `ProblemDetails` (the MCP endpoint's). */
  readonly problemSchema?: z.ZodMiniType;
  /**
   * `false`: routed and offered to CORS and `405` like the others, but left out of the document
   * (an answer with no successful outcome, such as the MCP endpoint's GET).
   */
  readonly documented?: false;
}
