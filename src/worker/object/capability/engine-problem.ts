import { errorCode, writeWireJson, type CapabilityError } from "../../../core/capability";
import { problem, type Problem } from "../../problem";

const CAPACITY = new Set([
  "provider-capacity-exceeded",
  "policy-capacity-exceeded",
  "request-capacity-exceeded",
  "client-request-capacity-exceeded",
  "effect-capacity-exceeded",
]);

/** Maps an engine error to its problem: the engine's tag is the detail, the error the `error` member. */
export function engineProblem(error: CapabilityError): Problem {
  const code = errorCode(error);
  const kind =
    code === "validation" ? "CAPABILITY_INVALID" : CAPACITY.has(code) ? "CAPABILITY_CAPACITY" : "CAPABILITY_REJECTED";
  return { ...problem(kind, code), errorJson: writeWireJson(error) };
}
