// `npm run build:openapi`: writes assets/openapi.json from the contracts (tools/lib/openapi.ts).
// `--check` exits 1 when the committed file is not what the sources give.
import { readFileSync, writeFileSync } from "node:fs";
import { OPENAPI_FILE, openApiText } from "./lib/openapi.ts";

const text = await openApiText();
if (process.argv.includes("--check")) {
  const current = readFileSync(OPENAPI_FILE, "utf8");
  if (current !== text) {
    console.error("assets/openapi.json is not what the contracts give: run `npm run build:openapi`.");
    process.exit(1);
  }
  console.log("openapi.json is current");
} else {
  writeFileSync(OPENAPI_FILE, text);
  console.log(`wrote assets/openapi.json (${text.length} bytes)`);
}
