// The bundle section of `npm run bench` alone (tools/lib/bench-bundle.ts).
import { printBundle } from "./lib/bench-bundle.ts";

await printBundle();
