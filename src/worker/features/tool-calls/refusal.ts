/**
 * The engine's refusals (a caller's host metadata the engine will not take) carried out of the
 * tool-call service's transactions and answered as problems.
 * @module
 */
import type { ToolResultRefusal } from "../../../core/tool-result/host-context";
import type { Result } from "../../../core/result";
import { problem, type Problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";

/** An engine refusal carried out of its transaction: the throw rolls back what the step wrote before it. */
class Refused extends Error {
  constructor(readonly refusal: ToolResultRefusal) {
    super(refusal.message);
  }
}

/** The problem of each engine refusal, in one exhaustive switch: a new refusal does not compile until mapped. */
function refusalProblem(refusal: ToolResultRefusal): Problem {
  switch (refusal.code) {
    case "HOST_CONTEXT_INVALID":
    case "APPROVAL_UNAVAILABLE":
    case "FAILURE_NOT_APPLICABLE":
    case "STATUS_QUERY_INVALID":
      return problem("INVALID_HOST_CONTEXT", refusal.message);
    default: {
      const unreachable: never = refusal.code;
      throw new Error(`unmapped tool-result refusal ${String(unreachable)}`);
    }
  }
}

/** The engine's value inside a transaction of {@link usage}; a refusal leaves by {@link Refused}. */
export function accepted<T>(result: Result<T, ToolResultRefusal>): T {
  if (!result.ok) throw new Refused(result.error);
  return result.value;
}

/** A refusal of the engine (a caller's host metadata), as a problem value once its transaction rolled back. */
export function usage<T>(step: () => T): Outcome<T> {
  try {
    return ok(step());
  } catch (error) {
    if (error instanceof Refused) return fail(refusalProblem(error.refusal));
    throw error;
  }
}
