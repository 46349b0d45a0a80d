// Module hooks: the MCP conformance suite imports `globSync` from `fs`, which Node 22 added.
// Only the suite's own modules see the shim (fs-glob.mjs: every `node:fs` export plus
// `globSync`); nothing in the suite's checks changes.
const shim = new URL("./fs-glob.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes("/@modelcontextprotocol/conformance/") === true;
  if (fromSuite && (specifier === "fs" || specifier === "node:fs")) return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
