import type { Feature } from "../../kernel/feature";
import { CAPABILITY_MIGRATIONS } from "./store";

/** The capability engine: its tables, its next deadline from the alarm, the providers' long-polls. */
export const CAPABILITY_FEATURE: Feature = {
  name: "capability",
  migrations: CAPABILITY_MIGRATIONS,
  alarm: (o) => o.capability.alarm(),
  memory: (o) => [
    { structure: "capability long-polls", entries: o.capability.waiting, cap: null, bound: "polls in flight only" },
  ],
};
