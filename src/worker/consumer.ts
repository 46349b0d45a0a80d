import { DurableObject } from "cloudflare:workers";
import type { Env } from "./env";

/** One object per consumer: owns that consumer's state and sequences in SQLite. */
export class ConsumerObject extends DurableObject<Env> {
  ping(): string {
    return "pong";
  }
}
