/**
 * The lanes `npm test`, `npm run test:reliability` and CI's `npm test` with the reliability suite run side by side
 * (tools/lib/side-by-side.ts): each child's lines are echoed under its label, quiet lines are kept
 * but not echoed, and each lane ends with one line saying how long it ran and how it exited.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { runLane } from "../../tools/lib/side-by-side";

/** What the lane echoed to this process's stdout and stderr, in order. */
function capture(): { stdout: string[]; stderr: string[] } {
  const seen = { stdout: [] as string[], stderr: [] as string[] };
  vi.spyOn(process.stdout, "write").mockImplementation((text: string | Uint8Array) => {
    seen.stdout.push(String(text));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((text: string | Uint8Array) => {
    seen.stderr.push(String(text));
    return true;
  });
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

const FINISHED = /^\[(?<label>[a-z+-]+)\] finished in (?<seconds>\d+\.\d) s, exit (?<exit>\w+)\n$/;

describe("runLane", () => {
  it("echoes whole lines under the label, keeps quiet ones out of the echo, and ends with its time and exit code", async () => {
    const seen = capture();
    const run = await runLane({
      label: "lane-a",
      args: ["-e", "console.log('one'); console.log('FIGURE two'); console.error('three'); process.exitCode = 3"],
      quiet: "FIGURE",
    });
    expect([run.label, run.code]).toEqual(["lane-a", 3]);
    expect(run.out.split("\n").sort()).toEqual(["", "FIGURE two", "one", "three"]);
    expect(seen.stderr).toEqual(["[lane-a] three\n"]);
    const last = seen.stdout.pop() ?? "";
    expect(seen.stdout).toEqual(["[lane-a] one\n"]);
    const finished = FINISHED.exec(last)?.groups;
    expect([finished?.["label"], finished?.["exit"]]).toEqual(["lane-a", "3"]);
    expect(finished?.["seconds"]).toBe(run.seconds.toFixed(1));
  });

  it("says a lane ended by a signal, and counts it as a failure", async () => {
    const seen = capture();
    const run = await runLane({ label: "lane-b", args: ["-e", "process.kill(process.pid, 'SIGTERM')"] });
    expect([run.code, run.out]).toEqual([1, ""]);
    const finished = FINISHED.exec(seen.stdout.at(-1) ?? "")?.groups;
    expect([finished?.["label"], finished?.["exit"]]).toEqual(["lane-b", "signal"]);
  });
});
