import type { Feature } from "../../kernel/feature";
import { CONSUMER_MIGRATIONS } from "./store";

/** The consumer's configuration (its one row). */
export const CONSUMER_FEATURE: Feature = { name: "consumer", migrations: CONSUMER_MIGRATIONS };
