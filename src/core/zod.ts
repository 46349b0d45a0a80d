/**
 * The schema library every contract is written in: `zod/mini`, the functional build of zod 4
 * (`z.optional(s)`, `s.check(z.maxLength(64))`), which bundles only the parts a contract uses
 * (about 12 KiB gzipped against 29 KiB for zod classic, issue #17), with the same issues,
 * messages and JSON Schema.
 *
 * zod/mini loads no locale by itself, so this module sets English messages once, before any
 * schema parses. Import it as a namespace (`import * as z` of this module, so a bundler keeps
 * only the functions used), never "zod" or "zod/mini" directly: every message an answer
 * carries then reads as it always did.
 * @module
 */
import { en } from "zod/locales";
import { config } from "zod/mini";

config(en());

export * from "zod/mini";
