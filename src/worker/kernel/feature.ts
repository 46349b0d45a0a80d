/**
 * A feature's registration with the gate (each folder's `feature.ts`, found by
 * src/worker/features/index.ts, which `npm run gen:features` writes from the folders): its routes,
 * the services it adds to the consumer object, the RPC operations the object answers for it, the
 * SQL of its own tables per schema version, the rows that expire, what it does when the shared
 * alarm fires or the object starts, and what it holds in memory. The app (../http/registry), the
 * object (./consumer-object), the migrations, the retention sweep, the alarm and the memory report
 * iterate the registry; none of them names a feature.
 * @module
 */
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { RouteModule } from "../http/route";
import type { ObjectKernel } from "./kernel";
import type { ExpiryRule, Migration } from "./schema";

/**
 * The services of one consumer object, by name. Each feature adds its own by declaration
 * merging in its `feature.ts` (`declare module "../../kernel/feature" { interface Services { … } }`),
 * beside the factory that builds them.
 */
export interface Services {
  readonly kernel: ObjectKernel;
  /** The embedding Worker's tools written as code (`createGate({ tools })`). */
  readonly codeTools: () => readonly ToolSpec[];
}

/**
 * The RPC operations of the consumer object, by name: each takes the object's services and the
 * caller's arguments. Each feature adds its own by declaration merging, as for {@link Services}.
 */
export interface Operations {
  /** A round trip (the benchmarks' baseline). */
  ping(s: Services): string;
  /** The consumer's CORS allow-list (../http/cors-origins). */
  corsOrigins(s: Services): string[];
}

/** Builds one service from the others (`use` builds what it names on first use). */
export type Factory<T> = (use: <K extends keyof Services>(name: K) => Services[K]) => T;

/** The factories of the services a feature adds. */
export type Factories = { readonly [K in keyof Services]?: Factory<Services[K]> };

/** The operations a feature answers. */
export type OperationTable = { readonly [K in keyof Operations]?: Operations[K] };

/** One in-memory structure: its entries now, and what bounds them (`cap`: a fixed number, else null and `bound` says). */
export interface HeldInMemory {
  readonly structure: string;
  readonly entries: number;
  readonly cap: number | null;
  readonly bound: string;
}

/** What one feature registers. */
export interface Feature {
  /** The folder under src/worker/features/ that owns it. */
  readonly name: string;
  /** Its HTTP routes, each declared once (../http/route). */
  readonly routes?: readonly RouteModule[];
  /** The services it adds to the consumer object. */
  readonly services?: Factories;
  /** The RPC operations the object answers for it. */
  readonly operations?: OperationTable;
  /** The DDL of its own tables, per schema version (stored formats are an API: only ever a new version). */
  readonly migrations?: readonly Migration[];
  /** Its rows the retention sweep deletes. */
  readonly expiry?: readonly ExpiryRule[];
  /** Runs when the object starts, after the migrations (inside `blockConcurrencyWhile`). */
  start?(s: Services): void;
  /** Runs when the shared alarm fires (idempotent: it asks for its slot again while it needs one). */
  alarm?(s: Services): void | Promise<void>;
  /** Its in-memory structures beside their bounds. */
  memory?(s: Services): readonly HeldInMemory[];
  /** The object's WebSockets (the Hibernation API), for the one feature that accepts them. */
  readonly sockets?: {
    upgrade(s: Services, request: Request): Promise<Response>;
    message(s: Services, ws: WebSocket, message: string | ArrayBuffer): Promise<void>;
    close(s: Services, ws: WebSocket, code: number, reason: string): void;
  };
}

/** A feature's registration, checked where it is written. */
export function defineFeature(feature: Feature): Feature {
  return feature;
}
