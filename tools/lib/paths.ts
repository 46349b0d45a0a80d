// Where the repository is, for every tool: commands run from any working directory.
import { fileURLToPath } from "node:url";

/** The repository root (no trailing slash). */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
