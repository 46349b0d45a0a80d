import { approvalWindowOf, type ConsumerRecord } from "../consumers/service";
import type { ObjectKernel } from "../../kernel/kernel";
import type { ToolsHost } from "../tools/host";
import type { StandingService } from "../standing/service";
import { ToolCallService } from "./service";

/**
 * The consumer's tool-call service, built from its configuration on first use and rebuilt after
 * the configuration or a data-defined tool changed (its registry and approvers are fixed per build).
 */
export class ToolCallServices {
  #service: ToolCallService | undefined;

  constructor(
    private readonly kernel: ObjectKernel,
    private readonly tools: ToolsHost,
    private readonly standing: StandingService,
  ) {}

  /** The service for `config` (the one built since the last change, if any). */
  for(config: ConsumerRecord): ToolCallService {
    this.#service ??= new ToolCallService(this.kernel, {
      registry: this.tools.registry(config.tools),
      approvers: config.approverSubjects,
      executor: this.tools.executor(),
      auditArguments: config.auditArguments,
      approvalWindow: approvalWindowOf(config),
      shadow: (seen) => this.tools.shadow.observe(seen, config.auditArguments),
      standing: (principal, call, claims, now) => this.standing.cover(config, principal, call, claims, now),
      tenantId: config.name,
    });
    return this.#service;
  }

  /** The configuration or the tools changed: the next call builds the service again. */
  invalidate(): void {
    this.#service = undefined;
  }
}
