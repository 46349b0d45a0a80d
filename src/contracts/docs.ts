/**
 * Whether this build carries the text only the OpenAPI document reads: the contracts'
 * descriptions and the routes' summaries and answer descriptions. The document is built from
 * the sources into assets/openapi.json (`npm run build:openapi`), so the Worker never reads that
 * text: its build (wrangler.toml `[define]`) sets `TOOLGATE_DOCS` to `false`, the bundler folds
 * every `DOCS ? "…" : ""` to `""` and the text stays out of the bundle (issue #32, about 12 KiB
 * gzipped). Everywhere else (the document's build, tests, the package) nothing defines it and
 * the text is there.
 * @module
 */

/** Set by a build that leaves the OpenAPI text out (a bundler's define); undeclared elsewhere. */
declare const TOOLGATE_DOCS: boolean | undefined;

/** Whether the OpenAPI text is in this build: write it as `DOCS ? "text" : ""`, so a build without it drops the text. */
export const DOCS: boolean = typeof TOOLGATE_DOCS === "undefined" || TOOLGATE_DOCS;
