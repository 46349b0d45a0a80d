/**
 * The access table (src/contracts/access.ts, which the consumer object also reads) and the route
 * declarations (src/worker/http/registry.ts) name the same operations: a route cannot exist
 * without its entry (the declaration is typed by the table's keys), and an entry cannot exist
 * without a route (checked here).
 */
import { describe, expect, it } from "vitest";
import { ACCESS, adminMay, type Operation } from "../../../src/contracts/access";
import { operations, routes } from "../../../src/worker/http/registry";

const tableOperations = Object.keys(ACCESS) as Operation[];

describe("the access table and the route declarations", () => {
  it("every operation of the access table has a route", () => {
    const routed = new Set(routes.map((r) => r.operation));
    expect(tableOperations.filter((op) => !routed.has(op))).toEqual([]);
  });

  it("every route names an operation of the table, or none (a public route)", () => {
    expect(
      routes
        .filter((r) => r.operation !== "none" && !Object.hasOwn(ACCESS, r.operation))
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
  });

  it("a route the registry authenticates names its operation; one for the admin secret alone names an operation the admin may make", () => {
    expect(
      routes.filter((r) => r.auth !== undefined && r.operation === "none").map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
    expect(
      routes
        .filter((r) => r.auth === "admin-secret" && (r.operation === "none" || !adminMay(r.operation)))
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
  });

  it("declares each method and path once", () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it("offers CORS and 405 every operation of the HTTP API, the console's pages aside", () => {
    expect(operations.length).toBe(
      routes.filter((r) => r.method !== "options" && r.method !== "all" && r.cors !== false).length,
    );
    expect(operations.some((op) => op.path.startsWith("/console"))).toBe(false);
  });
});
