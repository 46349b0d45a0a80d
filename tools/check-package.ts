// `npm run test:package`: the packed package's declarations under NodeNext, Node16 and Bundler, and
// attw over the tarball (tools/lib/package-check.ts). `--no-build` checks dist/ as it is.
import { checkPackage } from "./lib/package-check.ts";

process.exitCode = (await checkPackage({ build: !process.argv.includes("--no-build") })) ? 0 : 1;
