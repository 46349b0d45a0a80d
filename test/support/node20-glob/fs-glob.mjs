export * from "node:fs";
import fs from "node:fs";
import path from "node:path";
export default fs;
// Node 22 fs.globSync, for the one pattern form the suite uses: "**/NAME".
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const match = /^\*\*\/([^*/]+)$/.exec(pattern);
  if (match === null) throw new Error(`globSync shim: unsupported pattern ${pattern}`);
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(cwd, dir), { withFileTypes: true })) {
      const rel = dir === "" ? entry.name : path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name === match[1]) out.push(rel);
    }
  };
  walk("");
  return out;
}
