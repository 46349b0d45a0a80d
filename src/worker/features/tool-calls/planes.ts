import type { ConsumerRecord } from "../consumers/service";
import type { ObjectKernel } from "../../kernel/kernel";
import type { ToolsHost } from "../tools/host";
import { ToolCallService } from "./service";

/**
 * The consumer's tool-call plane, built from its configuration on first use and rebuilt after
 * the configuration or a data-defined tool changed (its registry and approvers are fixed per build).
 */
export class ToolCallPlanes {
  #plane: ToolCallService | undefined;

  constructor(
    private readonly kernel: ObjectKernel,
    private readonly tools: ToolsHost,
  ) {}

  /** The plane for `config` (the one built since the last change, if any). */
  for(config: ConsumerRecord): ToolCallService {
    this.#plane ??= new ToolCallService(this.kernel, {
      registry: this.tools.registry(config.tools),
      approvers: config.approverSubjects,
      executor: this.tools.executor(),
    });
    return this.#plane;
  }

  /** The configuration or the tools changed: the next call builds the plane again. */
  invalidate(): void {
    this.#plane = undefined;
  }
}
