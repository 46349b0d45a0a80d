import type * as z from "../core/zod";
import type { ConsumerDetails, ConsumerList, CredentialList } from "../contracts/admin-reads";
import type { ConsumerConfig, ConsumerPatch, ConsumerView } from "../contracts/consumer";
import type { CreateCredentialRequest, CreatedCredential } from "../contracts/credential";
import type { SecretValue, ToolDefinition, ToolVersionView } from "../contracts/tool-definition";
import type { SecretList, ToolDetails, ToolList, ToolState, ToolStateView } from "../contracts/tool-views";
import { call, query, type ClientResult, type GateOptions } from "./transport";

/** `GET …/tools`'s admin page: the enabled names and a page of the defined tools. */
export type AdminToolPage = Extract<z.output<typeof ToolList>, { defined: unknown }>;

const name = (value: string): string => encodeURIComponent(value);

/**
 * The admin's client (`token`: the admin secret): the consumer's configuration, its credentials,
 * its tools as data and its write-only secrets — the routes `toolgate admin` drives. The
 * consumer is `options.consumer`; {@link consumers} lists the gate's directory.
 */
export class AdminClient {
  constructor(readonly options: GateOptions) {}

  /** `GET /v1/consumers`: a page of consumer names in code-point order (`next_cursor` null on the last). */
  consumers(page: { cursor?: string; limit?: number } = {}): Promise<ClientResult<z.output<typeof ConsumerList>>> {
    return call(this.options, "GET", `/v1/consumers${query({ cursor: page.cursor, limit: page.limit })}`, undefined, {
      gateWide: true,
    });
  }

  /** `GET …`: the stored configuration, the limits with defaults applied, the storage size. */
  consumer(): Promise<ClientResult<z.output<typeof ConsumerDetails>>> {
    return call(this.options, "GET", "");
  }

  /** `PUT …`: creates or replaces the configuration. */
  putConsumer(config: z.input<typeof ConsumerConfig>): Promise<ClientResult<z.output<typeof ConsumerView>>> {
    return call(this.options, "PUT", "", config);
  }

  /** `PATCH …` (JSON merge patch) of the configuration. */
  patchConsumer(patch: z.input<typeof ConsumerPatch>): Promise<ClientResult<z.output<typeof ConsumerView>>> {
    return call(this.options, "PATCH", "", patch);
  }

  /** `POST …/credentials`: a new credential; its `secret` is answered this once. */
  createCredential(
    request: z.input<typeof CreateCredentialRequest>,
  ): Promise<ClientResult<z.output<typeof CreatedCredential>>> {
    return call(this.options, "POST", "/credentials", request);
  }

  /** `GET …/credentials`: a page in issue order, never a secret. */
  credentials(cursor?: string): Promise<ClientResult<z.output<typeof CredentialList>>> {
    return call(this.options, "GET", `/credentials${query({ cursor })}`);
  }

  /** `DELETE …/credentials/{id}`: revokes it (answers null). */
  revokeCredential(credentialId: string): Promise<ClientResult<null>> {
    return call(this.options, "DELETE", `/credentials/${name(credentialId)}`);
  }

  /** `PUT …/tools/{name}`: stores a new version of a data-defined tool. */
  putTool(
    toolName: string,
    definition: z.input<typeof ToolDefinition>,
  ): Promise<ClientResult<z.output<typeof ToolVersionView>>> {
    return call(this.options, "PUT", `/tools/${name(toolName)}`, definition);
  }

  /** `GET …/tools`: the enabled names and a page of the defined tools. */
  tools(cursor?: string): Promise<ClientResult<AdminToolPage>> {
    return call(this.options, "GET", `/tools${query({ cursor })}`);
  }

  /** `GET …/tools/{name}`: the current version and the history, newest first. */
  tool(toolName: string): Promise<ClientResult<z.output<typeof ToolDetails>>> {
    return call(this.options, "GET", `/tools/${name(toolName)}`);
  }

  /** `PATCH …/tools/{name}`: enables or disables the tool for the consumer. */
  setToolState(toolName: string, state: ToolState): Promise<ClientResult<z.output<typeof ToolStateView>>> {
    return call(this.options, "PATCH", `/tools/${name(toolName)}`, { state });
  }

  /** `DELETE …/tools/{name}`: withdraws a data-defined tool (answers null). */
  deleteTool(toolName: string): Promise<ClientResult<null>> {
    return call(this.options, "DELETE", `/tools/${name(toolName)}`);
  }

  /** `PUT …/secrets/{name}`: stores a write-only value (answers null; never read back). */
  putSecret(secretName: string, value: string): Promise<ClientResult<null>> {
    const body: z.input<typeof SecretValue> = { value };
    return call(this.options, "PUT", `/secrets/${name(secretName)}`, body);
  }

  /** `GET …/secrets`: a page of names, never a value. */
  secrets(cursor?: string): Promise<ClientResult<z.output<typeof SecretList>>> {
    return call(this.options, "GET", `/secrets${query({ cursor })}`);
  }

  /** `DELETE …/secrets/{name}` (answers null). */
  deleteSecret(secretName: string): Promise<ClientResult<null>> {
    return call(this.options, "DELETE", `/secrets/${name(secretName)}`);
  }
}
