import type { Feature } from "../../kernel/feature";
import {
  APPROVER_RESERVED_LISTENERS,
  LISTENERS_PER_CREDENTIAL,
  LISTENERS_PER_SUBJECT,
  MAX_LIVE_LISTENERS,
} from "./bus";

/** The events bus: its live listeners (waiting approval requests and open streams). */
export const EVENTS_FEATURE: Feature = {
  name: "events",
  memory: (o) => [
    {
      structure: "event-bus live listeners",
      entries: o.kernel.events.listeners,
      cap: MAX_LIVE_LISTENERS,
      bound: `refused beyond (QUOTA_EXCEEDED); ${LISTENERS_PER_CREDENTIAL} per credential, ${LISTENERS_PER_SUBJECT} per subject of subject-bound agent credentials, ${APPROVER_RESERVED_LISTENERS} kept for approvers`,
    },
  ],
};
