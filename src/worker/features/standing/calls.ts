import { StandingApprovalGrant } from "../../../contracts/standing-approval";
import { canonicalJson } from "../../../core/json";
import { ok, type Outcome } from "../../result";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import { received, type Carried } from "../../kernel/rpc";
import type { ToolsHost } from "../tools/host";
import type { StandingService } from "./service";

/** One standing-approval call of the routes; `kind` is its operation (an approver's). */
export type StandingCall =
  | { readonly kind: "grantStanding"; readonly request: Carried<StandingApprovalGrant> }
  | { readonly kind: "listStanding" }
  | { readonly kind: "revokeStanding"; readonly standingId: string };

/** The standing approvals' calls: each authenticated as an approver of the consumer first. */
export class StandingCalls {
  constructor(
    private readonly gate: Gatekeeper,
    private readonly tools: ToolsHost,
    private readonly standing: StandingService,
  ) {}

  call(consumer: string, token: string, call: StandingCall): Outcome<string> {
    const who = this.gate.approver(consumer, token, call.kind);
    if (!who.ok) return who;
    const { approverId, config } = who.value;
    switch (call.kind) {
      case "grantStanding": {
        const body = received(call.request, StandingApprovalGrant);
        const granted = this.standing.grant(config, this.tools.registry(config.tools), approverId, body);
        return granted.ok ? ok(canonicalJson(granted.value)) : granted;
      }
      case "listStanding":
        return this.standing.list();
      case "revokeStanding":
        return this.standing.revoke(call.standingId, approverId);
    }
  }
}
