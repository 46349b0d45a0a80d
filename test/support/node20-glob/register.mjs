// `node --import ./test/support/node20-glob/register.mjs …conformance/dist/index.js`: see hooks.mjs.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
