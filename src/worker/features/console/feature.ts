import type { Feature } from "../../kernel/feature";
import { CONSOLE_MIGRATIONS } from "./store";

/** The approver console's sessions. */
export const CONSOLE_FEATURE: Feature = { name: "console", migrations: CONSOLE_MIGRATIONS };
