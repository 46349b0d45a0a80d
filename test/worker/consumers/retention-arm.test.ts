// Retention's slot: a new instance's first call arms the sweep without reading a table (the
// sweep runs within SWEEP_SPACING_SECONDS and finds the first expiry then); later calls while the
// slot is set do nothing; a changed window looks for the first expiry at once.
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../../src/worker/kernel/limits";
import { Retention, SWEEP_SPACING_SECONDS } from "../../../src/worker/kernel/retention/sweep";

const NOW = 1_784_419_200;

function harness() {
  const queries: string[] = [];
  const armed: Array<number | null> = [];
  let window = 86_400;
  let slot: number | null = null;
  const sql = {
    exec(query: string) {
      queries.push(query);
      return { toArray: () => [{ first: NOW - 10 }] };
    },
  };
  const retention = new Retention({
    sql: sql as unknown as SqlStorage,
    now: () => NOW,
    limits: () => ({ ...DEFAULT_LIMITS, retention_seconds: window }),
    approvalWindow: () => 600,
    transaction: (step) => step(),
    wallMs: () => NOW * 1000,
    alarms: {
      set: (_slot, ms) => {
        armed.push(ms);
        slot = ms;
      },
      has: () => slot !== null,
    },
  });
  return { retention, queries, armed, setWindow: (w: number) => (window = w) };
}

describe("Retention.stored", () => {
  it("arms a new instance's slot SWEEP_SPACING_SECONDS ahead without a query, then does nothing while it is set", () => {
    const { retention, queries, armed } = harness();
    retention.stored();
    retention.stored();
    expect(SWEEP_SPACING_SECONDS).toBe(60);
    expect(armed).toEqual([(NOW + 60) * 1000]);
    expect(queries).toEqual([]);
  });

  it("looks for the first expiry when the window changes", () => {
    const { retention, queries, armed, setWindow } = harness();
    retention.stored();
    setWindow(120);
    retention.stored();
    // One query per expiry rule of the registry (mcp_call_keys, v18, is the seventh; v20 adds the
    // tools' two shadow tables and standing_approvals).
    expect(queries.length).toBe(10);
    // The first row (stored 10 s ago) expires in 110 s; a slot is never set sooner than 60 s ahead.
    expect(armed).toEqual([(NOW + 60) * 1000, (NOW + 110) * 1000]);
  });
});
