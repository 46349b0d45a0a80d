// `npm run build:package` (and `prepack`): the published package into dist/ (tools/lib/build-package.ts).
import { buildPackage } from "./lib/build-package.ts";

await buildPackage();
