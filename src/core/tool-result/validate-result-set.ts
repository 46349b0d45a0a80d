/**
 * The reference's `validate_result_set`: the results of a multi-call turn matched to its calls
 * by identity, then each validated alone.
 * @module
 */
import { compareCodePoints, sha256Hex } from "../json";
import { pyTupleRepr } from "./python-repr";
import { isPlainObject } from "./text-rules";
import type { ToolSpec } from "./tool-spec";
import type { HashFn, Principal, ToolCall } from "./types";
import { validateResult } from "./validate-result";

/** A call identity as the reference keys results: (response_id, call_id). */
type Identity = [string, string];

function compareIdentity(a: Identity, b: Identity): number {
  return compareCodePoints(a[0], b[0]) || compareCodePoints(a[1], b[1]);
}

/** The reference's `validate_result_set`: missing, duplicate, unknown or swapped results of a multi-call turn. */
export function validateResultSet(
  principal: Principal,
  calls: readonly ToolCall[],
  specs: ReadonlyMap<string, ToolSpec>,
  packages: readonly unknown[],
  hash: HashFn = sha256Hex,
): string[] {
  const errors: string[] = [];
  const expected = new Map<string, { id: Identity; call: ToolCall }>();
  for (const call of calls) {
    const id: Identity = [call.response_id, call.call_id];
    const key = JSON.stringify(id);
    if (expected.has(key)) errors.push(`duplicate expected call identity: ${pyTupleRepr(id)}`);
    expected.set(key, { id, call });
  }
  const actual = new Map<string, { id: Identity; pkg: unknown }>();
  packages.forEach((pkg, index) => {
    const audit = isPlainObject(pkg) ? pkg["protected_audit"] : undefined;
    const context = isPlainObject(audit) ? audit["provider_context"] : undefined;
    const responseId = isPlainObject(context) ? context["response_id"] : undefined;
    const callId = isPlainObject(context) ? context["call_id"] : undefined;
    // Non-string identities cannot match any call; the reference would crash on some of them.
    if (typeof responseId !== "string" || typeof callId !== "string") {
      errors.push(`packages[${index}] is missing provider correlation fields`);
      return;
    }
    const id: Identity = [responseId, callId];
    const key = JSON.stringify(id);
    if (actual.has(key)) {
      errors.push(`duplicate result identity: ${pyTupleRepr(id)}`);
      return;
    }
    actual.set(key, { id, pkg });
  });
  const sorted = <T extends { id: Identity }>(items: T[]): T[] => items.sort((a, b) => compareIdentity(a.id, b.id));
  for (const item of sorted([...expected].filter(([key]) => !actual.has(key)).map(([, v]) => v))) {
    errors.push(`missing result: ${pyTupleRepr(item.id)}`);
  }
  for (const item of sorted([...actual].filter(([key]) => !expected.has(key)).map(([, v]) => v))) {
    errors.push(`unknown result appears: ${pyTupleRepr(item.id)}`);
  }
  for (const item of sorted([...expected].filter(([key]) => actual.has(key)).map(([, v]) => v))) {
    const found = actual.get(JSON.stringify(item.id));
    errors.push(...validateResult(principal, item.call, specs.get(item.call.name), found?.pkg, hash));
  }
  return errors;
}
