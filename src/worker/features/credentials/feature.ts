import type { Feature } from "../../kernel/feature";
import { CREDENTIAL_CACHE_ENTRIES } from "./service";
import { CREDENTIAL_MIGRATIONS } from "./store";

/** Credentials: their table, and the decoded ones cached in memory (an LRU map). */
export const CREDENTIALS_FEATURE: Feature = {
  name: "credentials",
  migrations: CREDENTIAL_MIGRATIONS,
  memory: (o) => [
    { structure: "credential cache", entries: o.credentials.cached, cap: CREDENTIAL_CACHE_ENTRIES, bound: "LRU" },
  ],
};
