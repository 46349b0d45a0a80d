// `npm run build:cli`: dist/cli.js (see tools/lib/build-cli.ts).
import { buildCli } from "./lib/build-cli.ts";

await buildCli();
