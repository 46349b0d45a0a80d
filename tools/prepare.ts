// `prepare` (npm install from git, npm ci): builds the CLI and the package, so an install from
// the repository has them. CI's own install sets TOOLGATE_CI_INSTALL=1 and skips both: the
// `npm test` it runs next builds each of them itself before any check reads it.
import { buildCli } from "./lib/build-cli.ts";
import { buildPackage } from "./lib/build-package.ts";

if (process.env["TOOLGATE_CI_INSTALL"] === "1") {
  process.stdout.write("prepare: skipped (npm test builds the CLI and the package)\n");
} else {
  await buildCli();
  await buildPackage();
}
