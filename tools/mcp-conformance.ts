// `npm run mcp:conformance`: the official MCP conformance suite (server mode) against the MCP
// endpoint of the gate `npm start` serves (TOOLGATE_BASE, by default http://127.0.0.1:8787; the
// admin token from .dev.vars). How it is set up: tools/lib/mcp-conformance.ts.
import { runConformance } from "./lib/mcp-conformance.ts";
import { readDevVars } from "./lib/wrangler-dev.ts";

const base = process.env.TOOLGATE_BASE ?? "http://127.0.0.1:8787";
const admin = readDevVars().TOOLGATE_ADMIN_TOKEN;
if (admin === undefined) throw new Error("no TOOLGATE_ADMIN_TOKEN in .dev.vars: run `npm start` first");
const { results, table } = await runConformance({ base, admin, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(table);
const passed = Object.values(results).filter(Boolean).length;
process.stdout.write(`\nmcp conformance: ${passed} of ${Object.keys(results).length} scenarios passed\n`);
