import type { Feature } from "../../kernel/feature";
import { RUNTIME_EXPIRY, RUNTIME_MIGRATIONS } from "./store";

/** The runtime transport: facade actions, the outbox and purges, and the rows of them that expire. */
export const RUNTIME_FEATURE: Feature = { name: "runtime", migrations: RUNTIME_MIGRATIONS, expiry: RUNTIME_EXPIRY };
