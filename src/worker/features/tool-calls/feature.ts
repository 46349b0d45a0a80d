import type { Feature } from "../../kernel/feature";
import { TOOL_CALL_EXPIRY, TOOL_CALL_MIGRATIONS } from "./store";

/** Tool-call records and approvals: their tables, and the records and decided approvals that expire. */
export const TOOL_CALLS_FEATURE: Feature = {
  name: "tool-calls",
  migrations: TOOL_CALL_MIGRATIONS,
  expiry: TOOL_CALL_EXPIRY,
};
