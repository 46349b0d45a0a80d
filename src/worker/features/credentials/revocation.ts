import { detachProvider, isCapabilitySocket } from "../capability/socket";
import type { CapabilityService } from "../capability/service";
import type { ObjectKernel } from "../../kernel/kernel";
import type { McpService } from "../mcp/service";
import { closeCredentialSockets } from "../sockets/sessions";

/** What ends with a credential, wherever it was revoked (the admin route, an OAuth grant replaced or revoked). */
export class Revocation {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "ctx" | "events">,
    private readonly mcp: McpService,
    private readonly capability: CapabilityService,
  ) {}

  /** A credential was revoked: its sockets close (1008; a provider's binding detaches first), its waits and streams end, its MCP sessions and tasks go. */
  revoked(credentialId: string): number {
    this.mcp.credentialEnded(credentialId);
    const ctx = this.kernel.ctx;
    const closed = closeCredentialSockets(
      ctx,
      credentialId,
      (ws) => isCapabilitySocket(ctx, ws) && detachProvider(this.capability, ws),
    );
    this.kernel.events.recheck();
    return closed;
  }
}
