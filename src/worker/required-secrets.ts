/**
 * Which required Worker secrets a deployment lacks, and the problem a request that needs one
 * answers: the operator's mistake named plainly (`503 GATE_MISCONFIGURED`) instead of a bare 500.
 * @module
 */
import { REQUIRED_SECRETS, type RequiredSecret } from "../contracts/service";
import { MIN_TOKEN_KEY_CHARS } from "./features/credentials/format";
import { MIN_ADMIN_TOKEN_CHARS } from "./http/auth";
import { problem, type Problem } from "./http/problem";

export { REQUIRED_SECRETS, type RequiredSecret };

/** The shortest value the gate uses of each; a shorter one counts as unset. */
const MIN_CHARS: Readonly<Record<RequiredSecret, number>> = {
  TOOLGATE_ADMIN_TOKEN: MIN_ADMIN_TOKEN_CHARS,
  TOOLGATE_TOKEN_KEY: MIN_TOKEN_KEY_CHARS,
};

/** The required secrets `env` lacks (unset or too short), by name only: never a value. */
export function missingSecrets(env: Readonly<Partial<Record<RequiredSecret, string>>>): RequiredSecret[] {
  return REQUIRED_SECRETS.filter((name) => (env[name]?.length ?? 0) < MIN_CHARS[name]);
}

/** The problem of a request that needs `secret`, which the deployment lacks; `refused`: what cannot be done without it. */
export function misconfigured(secret: RequiredSecret, refused: string): Problem {
  return problem(
    "GATE_MISCONFIGURED",
    `The Worker secret ${secret} is unset or shorter than ${MIN_CHARS[secret]} characters, so ${refused}; the operator sets it (wrangler secret put ${secret}, or .dev.vars locally).`,
  );
}
