import { defineFeature } from "../../kernel/feature";
import { SECRET_MIGRATIONS } from "./store";

/** The consumer's sealed secrets (the tools feature's service serves their operations). */
export const feature = defineFeature({ name: "secrets", migrations: SECRET_MIGRATIONS });
