/**
 * CEL policies of data-defined tools (`authorize` and `approval` rules): compiled once with
 * {@link compilePolicy}, evaluated per call over {@link PolicyVariables} with a cost bound.
 * The reference of the language (variables, functions, limits) is docs/tools.md, "Policies in CEL".
 * @module
 */
export { compilePolicy, type CompiledPolicy, type PolicyFailure, type PolicyRefusal, type PolicyUse } from "./cel";
export { POLICY_LIMITS } from "./limits";
export { argsShape, checkPolicyTypes } from "./typed-check";
export { ALLOWED_FUNCTIONS, ALLOWED_METHODS } from "./environment";
export {
  POLICY_VARIABLE_NAMES,
  type PolicyPrincipal,
  type PolicyVariables,
  type PolicyVariableName,
} from "./variables";
