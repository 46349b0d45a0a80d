import { errorCode, writeWireJson, type CapabilityError, type CapabilityErrorCode } from "../../../core/capability";
import { problem, type Problem, type ProblemCode } from "../../http/problem";

/**
 * The problem code of each engine reason, in one exhaustive switch: a new engine reason does
 * not compile until it is given its problem here.
 */
function problemCode(code: CapabilityErrorCode): ProblemCode {
  switch (code) {
    case "validation":
      return "CAPABILITY_INVALID";
    case "provider-capacity-exceeded":
    case "policy-capacity-exceeded":
    case "request-capacity-exceeded":
    case "client-request-capacity-exceeded":
    case "effect-capacity-exceeded":
      return "CAPABILITY_CAPACITY";
    case "duplicate-provider":
    case "duplicate-request":
    case "effect-sequence-exhausted":
    case "unknown-policy-provider":
    case "unknown-policy-capability":
    case "provider-owner-mismatch":
    case "unknown-policy-instance":
    case "inactive-policy-instance":
    case "policy-generation-mismatch":
    case "unknown-request":
    case "request-not-awaiting-approval":
    case "approval-scope-mismatch":
    case "approval-nonce-mismatch":
    case "approval-generation-stale":
    case "approval-deadline-elapsed":
    case "clock-regressed":
    case "generation-regressed":
    case "authority-sequence-regressed":
    case "counter-exhausted":
    case "unknown-runtime-provider":
    case "provider-unavailable":
    case "provider-binding-mismatch":
    case "sequence-exhausted":
    case "sequence-regressed":
    case "unknown-provider":
    case "invalid-attach-binding":
    case "already-attached":
    case "not-attached":
    case "binding-mismatch":
    case "tool-effect-provider-unbound":
      return "CAPABILITY_REJECTED";
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped capability error ${String(unreachable)}`);
    }
  }
}

/** Maps an engine error to its problem: the engine's tag is the detail, the error the `error` member. */
export function engineProblem(error: CapabilityError): Problem {
  const code = errorCode(error);
  return { ...problem(problemCode(code), code), errorJson: writeWireJson(error) };
}
