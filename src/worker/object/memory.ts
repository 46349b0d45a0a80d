/**
 * What a consumer object holds in memory between calls, each structure beside the bound that
 * keeps it from growing with the calls the object serves (an object lives as long as its
 * traffic, so nothing it keeps may grow per call). Read by code in the object's own isolate:
 * `npm run bench:http` prints it after 10,000 calls (bench/cost-worker.ts); a test can read it
 * through `runInDurableObject`. Everything else of a consumer lives in SQLite.
 * @module
 */
import { CREDENTIAL_CACHE_ENTRIES } from "./credentials/plane";
import { RATE_BUCKETS } from "./credentials/rate";
import { MAX_RELAYED_REQUESTS } from "./mcp/requests";
import { APPROVER_RESERVED_LISTENERS, LISTENERS_PER_CREDENTIAL, LISTENERS_PER_SUBJECT, MAX_LIVE_LISTENERS } from "./events/bus";

/** Entries of each in-memory structure of one object, now. */
export interface MemoryCounts {
  /** Decoded credentials (credentials/plane.ts, an LRU map). */
  readonly credentials: number;
  /** Call-rate buckets, one per credential that called lately (credentials/rate.ts, an LRU map). */
  readonly rateBuckets: number;
  /** Live listeners of the event bus: waiting approval requests and open streams (events/bus.ts). */
  readonly listeners: number;
  /** MCP sampling and elicitation requests awaiting the client (mcp/requests.ts). */
  readonly relayed: number;
  /** Providers with a capability long-poll waiting (capability/waiters.ts). */
  readonly pollers: number;
  /** Accepted WebSockets (runtime and capability sessions; hibernation keeps them outside the isolate). */
  readonly sockets: number;
}

/** One structure: its entries now, and what bounds them (`cap`: a fixed number, else null and `bound` says). */
export interface HeldInMemory {
  readonly structure: string;
  readonly entries: number;
  readonly cap: number | null;
  readonly bound: string;
}

const tracked = new WeakMap<object, () => MemoryCounts>();

/** Registers how an object counts what it holds (its constructor does, once). */
export function trackMemory(object: object, counts: () => MemoryCounts): void {
  tracked.set(object, counts);
}

/** The object's in-memory structures beside their bounds; empty for an object that never registered. */
export function heldInMemory(object: object): HeldInMemory[] {
  const counts = tracked.get(object)?.();
  if (counts === undefined) return [];
  return [
    { structure: "credential cache", entries: counts.credentials, cap: CREDENTIAL_CACHE_ENTRIES, bound: "LRU" },
    { structure: "call-rate buckets", entries: counts.rateBuckets, cap: RATE_BUCKETS, bound: "LRU" },
    { structure: "event-bus live listeners", entries: counts.listeners, cap: MAX_LIVE_LISTENERS, bound: `refused beyond (QUOTA_EXCEEDED); ${LISTENERS_PER_CREDENTIAL} per credential, ${LISTENERS_PER_SUBJECT} per subject of subject-bound agent credentials, ${APPROVER_RESERVED_LISTENERS} kept for approvers` },
    { structure: "relayed MCP requests", entries: counts.relayed, cap: null, bound: `${MAX_RELAYED_REQUESTS} per call in flight, dropped when it ends` },
    { structure: "capability long-polls", entries: counts.pollers, cap: null, bound: "polls in flight only" },
    { structure: "WebSockets", entries: counts.sockets, cap: null, bound: "sockets_per_credential per credential" },
  ];
}
