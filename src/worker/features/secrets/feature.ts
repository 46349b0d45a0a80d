import type { Feature } from "../../kernel/feature";
import { SECRET_MIGRATIONS } from "./store";

/** The consumer's sealed secrets. */
export const SECRETS_FEATURE: Feature = { name: "secrets", migrations: SECRET_MIGRATIONS };
