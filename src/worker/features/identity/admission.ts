import type { JsonObject } from "../../../core/json";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { Outcome } from "../../result";
import { fail, ok } from "../../result";
import { problem } from "../../http/problem";
import type { ConsumerRecord } from "../consumers/service";
import type { Caller } from "../credentials/service";
import type { ObjectKernel } from "../../kernel/kernel";
import { CallRate } from "../credentials/rate";
import type { Limits } from "../../kernel/limits";
import { bindCall, type BoundCall, type ToolCallInput } from "../tool-calls/bind";
import { capabilityInScope, resolvePrincipal, toolInScope } from "./principal";
import { PrincipalTokens } from "./principal-token";

/** What admission reads of the kernel: the clocks and the outbound fetch under the target rule (the issuer's JWKS). */
type AdmissionKernel = Pick<ObjectKernel, "now" | "rateMs" | "fetch">;

/**
 * Admission of an agent's tool call, after authentication: the credential's call rate, the
 * principal from what the gate verified, the call bound to its host context, and the
 * credential's tool scope — in that order, each refusal a problem and nothing executed.
 */
export class AgentAdmission {
  readonly #rate = new CallRate();
  readonly #tokens: PrincipalTokens;

  constructor(private readonly kernel: AdmissionKernel) {
    this.#tokens = new PrincipalTokens((url, init) => kernel.fetch(new Request(url, init)));
  }

  /** Rate buckets held now (credentials/rate.ts, bounded). */
  get rateBuckets(): number {
    return this.#rate.size;
  }

  /** Takes one token of a credential's call rate: each tool call here, and the MCP requests that store or wait (mcp/service.ts). */
  rate(credentialId: string, limits: Limits): Outcome<null> {
    return this.#rate.take(credentialId, limits, this.kernel.rateMs());
  }

  /**
   * The end user a token-verified credential relays (an in-chat confirmation, docs/approvals.md):
   * one token of the credential's call rate, then the token verified against the consumer's
   * issuer as a call's is. Another kind of credential relays no end user (`FORBIDDEN`).
   */
  async endUser(consumer: string, caller: Caller, config: ConsumerRecord, limits: Limits, token: string) {
    const rate = this.rate(caller.credentialId, limits);
    if (!rate.ok) return rate;
    if (caller.principal !== "token")
      return fail(problem("FORBIDDEN", "Only a token-verified credential relays an end user's confirmation."));
    return resolvePrincipal(consumer, caller, { principal_token: token }, config.principalTokens, (issuer, jwt) =>
      this.#tokens.verify(issuer, jwt, this.kernel.now()),
    );
  }

  /**
   * `bound`: the input already bound (a batch binds every call before the first runs), so its
   * item is not parsed again; `capabilityOf`: the capability a tool name stands for (a capability
   * tool, capability/tool-call.ts), which the scope names as `capability:<id>` instead.
   */
  async admit(
    consumer: string,
    caller: Caller,
    config: ConsumerRecord,
    limits: Limits,
    input: ToolCallInput,
    bound?: BoundCall,
    capabilityOf?: (name: string) => string | null,
  ): Promise<Outcome<{ principal: Principal; claims: JsonObject; call: ToolCall } & BoundCall>> {
    const rate = this.rate(caller.credentialId, limits);
    if (!rate.ok) return rate;
    const principal = await resolvePrincipal(consumer, caller, input, config.principalTokens, (issuer, jwt) =>
      this.#tokens.verify(issuer, jwt, this.kernel.now()),
    );
    if (!principal.ok) return principal;
    const call = bound === undefined ? bindCall(input) : ok(bound);
    if (!call.ok) return call;
    const name = call.value.call.name;
    const capability = capabilityOf?.(name) ?? null;
    const scope = capability === null ? toolInScope(caller, name) : capabilityInScope(caller, name, capability);
    return scope.ok
      ? ok({
          principal: principal.value.principal,
          claims: principal.value.claims,
          call: call.value.call,
          echo: call.value.echo,
        })
      : scope;
  }
}
