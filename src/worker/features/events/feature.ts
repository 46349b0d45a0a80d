import { defineFeature } from "../../kernel/feature";
import {
  APPROVER_RESERVED_LISTENERS,
  LISTENERS_PER_CREDENTIAL,
  LISTENERS_PER_SUBJECT,
  MAX_LIVE_LISTENERS,
} from "./bus";

/** The events bus: its live listeners (waiting approval requests and open streams). */
export const feature = defineFeature({
  name: "events",
  memory: (s) => [
    {
      structure: "event-bus live listeners",
      entries: s.kernel.events.listeners,
      cap: MAX_LIVE_LISTENERS,
      bound: `refused beyond (QUOTA_EXCEEDED); ${LISTENERS_PER_CREDENTIAL} per credential, ${LISTENERS_PER_SUBJECT} per subject of subject-bound agent credentials, ${APPROVER_RESERVED_LISTENERS} kept for approvers`,
    },
  ],
});
