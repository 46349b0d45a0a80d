// `npm run build:extension`: the browser extension into examples/browser-extension/dist/
// (tools/lib/build-extension.ts).
import { buildExtension } from "./lib/build-extension.ts";

const dir = await buildExtension();
process.stdout.write(`built ${dir}/dist (load the folder ${dir})\n`);
