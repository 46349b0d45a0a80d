/**
 * The startup section of `npm run bench` (tools/lib/bench-startup.ts): the active CPU it reads
 * from a V8 CPU profile (each sample lasts until the next, `(idle)` ones left out; the format is
 * Chrome DevTools' `Profiler.Profile`), the median and range it prints, and the hello world's
 * config, built like the gate's.
 */
import { describe, expect, it } from "vitest";
import { activeMs, activeSamples, helloConfig, spread } from "../../tools/lib/bench-startup";

describe("activeMs", () => {
  it("counts the time from each sample to the next, except in (idle), and nothing after the last", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: "(root)" } },
        { id: 2, callFrame: { functionName: "(idle)" } },
        { id: 3, callFrame: { functionName: "" } },
        { id: 4, callFrame: { functionName: "(garbage collector)" } },
      ],
      // Samples at 0, 40 000, 41 000, 43 500, 44 000 and 50 000 µs after the start.
      samples: [2, 3, 4, 3, 2, 3],
      timeDeltas: [0, 40_000, 1_000, 2_500, 500, 6_000],
    };
    // The two samples of "" count 1 000 and 500 µs, the collector's 2 500; the idle ones and the last none.
    expect(activeMs(profile)).toBe(4);
  });

  it("counts a sample at most the cap it is given: a gap longer than the profiler's interval is time it did not see", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: "(idle)" } },
        { id: 2, callFrame: { functionName: "" } },
      ],
      // (idle) at 0, "" at 1 000, 2 100 and 3 200 µs, (idle) at 23 200 µs.
      samples: [1, 2, 2, 2, 1],
      timeDeltas: [0, 1_000, 1_100, 1_100, 20_000],
    };
    // Uncapped, the last "" lasts until the (idle) sample 20 ms later; capped at 2 200 µs, it counts that.
    expect(activeMs(profile)).toBe(22.2);
    expect(activeMs(profile, 2_200)).toBe(4.4);
  });
});

describe("activeSamples", () => {
  it("counts the samples outside (idle) and the gaps between two consecutive ones, in ms", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: "(idle)" } },
        { id: 2, callFrame: { functionName: "" } },
      ],
      // (idle) at 0, "" at 20 000, 21 100 and 22 200 µs, (idle) at 30 000, "" at 31 000 µs (the last).
      samples: [1, 2, 2, 2, 1, 2],
      timeDeltas: [0, 20_000, 1_100, 1_100, 7_800, 1_000],
    };
    // Four samples of ""; two gaps run from one of them to the next (1.1 ms each), none across (idle).
    expect(activeSamples(profile)).toEqual({ count: 4, gaps: [1.1, 1.1] });
  });
});

describe("spread", () => {
  it("gives the middle value of an odd count, the mean of the middle two of an even one, and the range", () => {
    expect(spread([9, 1, 5, 3, 7])).toEqual({ median: 5, min: 1, max: 9 });
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
  });
});

describe("helloConfig", () => {
  it("takes the gate's compatibility date, flags, minify and keep_names", () => {
    const gate = [
      'name = "toolgate"',
      'main = "src/worker/index.ts"',
      'compatibility_date = "2026-04-26"',
      'compatibility_flags = ["nodejs_compat"]',
      "minify = true",
      "keep_names = false",
      "",
      "[[durable_objects.bindings]]",
      'name = "CONSUMER"',
    ].join("\n");
    expect(helloConfig(gate, "/repo/bench/startup-hello.ts")).toBe(
      [
        'name = "startup-hello"',
        'main = "/repo/bench/startup-hello.ts"',
        'compatibility_date = "2026-04-26"',
        'compatibility_flags = ["nodejs_compat"]',
        "minify = true",
        "keep_names = false",
        "",
      ].join("\n"),
    );
  });
});
