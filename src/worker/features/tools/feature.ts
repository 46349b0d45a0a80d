import type { Feature } from "../../kernel/feature";
import { TOOL_MIGRATIONS } from "./store";

/** Data-defined tools and their versions. */
export const TOOLS_FEATURE: Feature = { name: "tools", migrations: TOOL_MIGRATIONS };
