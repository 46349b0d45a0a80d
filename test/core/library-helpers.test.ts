import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Helpers live once, in the library that has them: hex through noble's bytesToHex, HTML escaping
// through hono's escaper, every list cursor through src/worker/kernel/cursor.ts. A helper
// written again beside them is a second implementation to keep right.
const root = fileURLToPath(new URL("../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** The files under `dir` (relative to the repository) whose text matches `pattern`, sorted. */
function matching(dir: string, pattern: RegExp, skip: (file: string) => boolean = () => false): string[] {
  return sources(join(root, dir))
    .map((file) => relative(root, file))
    .filter((file) => !skip(file) && pattern.test(readFileSync(join(root, file), "utf8")))
    .sort();
}

describe("helpers the dependencies already have are not written again", () => {
  it("encodes bytes as hex only through noble outside the core", () => {
    expect(matching("src", /\.toString\(16\)|0123456789abcdef/, (file) => file.startsWith("src/core/"))).toEqual([]);
  });

  it("escapes HTML only through hono's escaper, in one Worker module", () => {
    expect(matching("src/worker", /&amp;|&#\$\{|&#39;|&quot;/)).toEqual([]);
    expect(matching("src", /from "hono\/(utils\/)?html"/)).toEqual(["src/worker/features/console/html.ts"]);
    expect(matching("src/worker", /export function escapeHtml/)).toEqual(["src/worker/features/console/html.ts"]);
  });

  it("reads list cursors only through the one codec: INVALID_CURSOR for a cursor's text is built there", () => {
    // The others: a credential or consumer the cursor names that is gone, and the approvals route's length bound.
    expect(matching("src", /problem\("INVALID_CURSOR"/)).toEqual([
      "src/worker/features/capability/routes.ts",
      "src/worker/features/consumers/reads.ts",
      "src/worker/features/directory/directory-object.ts",
      "src/worker/kernel/cursor.ts",
    ]);
    // Beside the cursor codec, base64url is read only for the JWS segments of end users' tokens (RFC 7515).
    const base64url = /wire\/base64url/;
    expect([...matching("src/worker/features", base64url), ...matching("src/worker/kernel", base64url)]).toEqual([
      "src/worker/features/identity/jwt.ts",
      "src/worker/kernel/cursor.ts",
    ]);
  });
});
