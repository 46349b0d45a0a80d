import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as z from "../../src/core/zod";

// Issue #32 (cold start): a Worker starts every module it bundles, so a schema built at module
// scope costs every isolate its construction before the first request. Module-level schemas are
// declared `z.deferred(() => …)` and built on first use; these tests hold the helper to what it
// promises and the sources to using it.
const root = fileURLToPath(new URL("../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.ts$/.test(path) ? [path] : [];
  });
}

/** A module-level `const` whose value is a zod call (a schema built when the module starts). */
const EAGER = /^(?:export )?const \w+(?::[^=]+)? =\s*z\s*\.(?!deferred\(|deferredShape\(|registry\b)\w+/gm;

describe("module-level schemas under src/", () => {
  it("are all deferred", () => {
    const eager = sources(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(EAGER)].map((m) => `${relative(root, file)}: ${m[0]}`),
    );
    expect(eager).toEqual([]);
  });
});

describe("z.deferred", () => {
  it("builds the schema on first use, once", () => {
    let builds = 0;
    const Name = z.deferred(() => {
      builds += 1;
      return z.string().check(z.maxLength(3));
    });
    expect(builds).toBe(0);
    expect(z.safeParse(Name, "abc").success).toBe(true);
    expect(z.safeParse(Name, "abcd").success).toBe(false);
    expect(builds).toBe(1);
  });

  it("answers as the schema inside other schemas, with the schema's messages", () => {
    const Count = z.deferred(() => z.int().check(z.gte(1)));
    const Order = z.deferred(() => z.strictObject({ count: Count }));
    expect(z.parse(Order, { count: 2 })).toEqual({ count: 2 });
    const failed = z.safeParse(Order, { count: 0 });
    expect(failed.success).toBe(false);
    expect(failed.error?.issues).toEqual([
      {
        origin: "number",
        code: "too_small",
        minimum: 1,
        inclusive: true,
        path: ["count"],
        message: "Too small: expected number to be >=1",
      },
    ]);
    expect(Count instanceof z.ZodMiniNumber).toBe(true);
    expect("_zod" in Count).toBe(true);
  });

  it("is the schema its builder registered, in the registry and by id", () => {
    const registry = z.registry<{ id: string }>();
    const Thing = z.deferred(() => z.string().register(registry, { id: "Thing" }));
    expect(registry._idmap.has("Thing")).toBe(false);
    z.buildDeferred();
    expect(registry.get(Thing)).toEqual({ id: "Thing" });
    expect(registry._idmap.get("Thing")).toBe(Thing);
  });

  it("builds what is still pending in declaration order", () => {
    const order: string[] = [];
    z.deferred(() => (order.push("first"), z.string()));
    const second = z.deferred(() => (order.push("second"), z.string()));
    z.deferred(() => (order.push("third"), z.string()));
    z.parse(second, "x");
    z.buildDeferred();
    expect(order).toEqual(["second", "first", "third"]);
  });
});

describe("z.deferredShape", () => {
  it("builds the shared members on the first call, once, and answers the same ones after", () => {
    let builds = 0;
    const members = z.deferredShape(() => {
      builds += 1;
      return { name: z.string().check(z.maxLength(3)) };
    });
    expect(builds).toBe(0);
    const first = members();
    const Short = z.strictObject({ ...members() });
    expect([builds, members() === first, members().name === first.name]).toEqual([1, true, true]);
    expect([z.safeParse(Short, { name: "abc" }).success, z.safeParse(Short, { name: "abcd" }).success]).toEqual([
      true,
      false,
    ]);
  });
});
