/**
 * Consumers of the worker tests: their names, and the operator's setup of one (configuration,
 * secrets, tool definitions, a pinned clock) with the credentials the test acts with.
 *
 * Files run side by side, each in its own workerd with its own Durable Object storage (the pool
 * starts one per file), so two files never see each other's consumers. Each file still names
 * its own consumers, so a shared name is never what makes a test pass. The reference's tenants
 * are the exception: the demo orders belong to `tenant-a` and `tenant-b`, and the principal's
 * tenant (the consumer name) is an input of every approval digest, so files that assert those
 * values use these names as they are.
 */
import { expect } from "vitest";
import { adminClient } from "./admin";
import { credential, pinClock } from "./gate";

/** The reference's tenant that owns ORDER-7 and ORDER-8 (ORDER-9 is `tenant-b`'s). */
export const REFERENCE_TENANT = "tenant-a";

const issued = new Map<string, number>();

/**
 * A consumer name no other call in this workerd has answered: `<label>-<n>` (the files that share
 * a workerd share this module and its counts). For tests that need a fresh consumer each time (per
 * test, or per property run) instead of wiping one.
 */
export function freshConsumer(label: string): string {
  const n = (issued.get(label) ?? 0) + 1;
  issued.set(label, n);
  return `${label}-${n}`;
}

/** How a consumer is set up: the configuration body, then what it enables. */
export interface ConsumerSetup {
  /** The configuration members besides `tools` (`approver_subjects`, `limits`, …). */
  config: Record<string, unknown>;
  /** The configuration of the first request, when it differs (before the definitions exist). */
  first?: Record<string, unknown>;
  /** The tools the consumer enables at the end. */
  tools: string[];
  /** Secrets to store before the definitions (name → value), in order. */
  secrets?: Record<string, string>;
  /** Tool definitions to put before enabling them (name → definition), in order. */
  definitions?: Record<string, unknown>;
  /** Pins the consumer object's clock (Unix seconds). */
  clock?: number;
}

/**
 * Sets up `consumer` as an operator would: with secrets or definitions, first the configuration
 * without tools, then the secrets, the definitions and the configuration enabling `tools`;
 * otherwise the configuration at once. Every step must succeed. Then pins the clock.
 */
export async function setupConsumer(consumer: string, setup: ConsumerSetup): Promise<void> {
  const admin = adminClient(consumer);
  const secrets = Object.entries(setup.secrets ?? {});
  const definitions = Object.entries(setup.definitions ?? {});
  if (secrets.length > 0 || definitions.length > 0) {
    expect(await admin.status("PUT", "", { tools: [], ...(setup.first ?? setup.config) })).toBe(200);
    for (const [name, value] of secrets) expect(await admin.status("PUT", `/secrets/${name}`, { value })).toBe(204);
    for (const [name, definition] of definitions)
      expect(await admin.status("PUT", `/tools/${name}`, definition)).toBe(200);
  }
  expect(await admin.status("PUT", "", { tools: setup.tools, ...setup.config })).toBe(200);
  if (setup.clock !== undefined) await pinClock(consumer, setup.clock);
}

/** Mints a credential of `consumer` and answers only its secret. */
export async function secretOf(
  consumer: string,
  kind: string,
  subject?: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return (await credential(consumer, kind, subject, extra)).secret;
}
