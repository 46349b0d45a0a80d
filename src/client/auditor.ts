import type * as z from "../core/zod";
import type {
  AuditCheckpointView,
  AuditConsistencyQuery,
  AuditConsistencyView,
  AuditEntryView,
  AuditInclusionQuery,
  AuditInclusionView,
  AuditPage,
  AuditQuery,
  AuditVerifierKeys,
  AuditVerifyView,
} from "../contracts/audit";
import { call, callText, query, readWire, type ClientResult, type GateOptions } from "./transport";

/** One audit-chain entry (`AuditEntry`). */
export type AuditEntry = z.output<typeof AuditEntryView>;

/** `GET …/audit`'s query (`AuditQuery`): `cursor` or `after`, and `limit`. */
export type AuditPageQuery = z.output<typeof AuditQuery>;

/** An audit export read whole: the entries, oldest first, and the signed checkpoint covering exactly them. */
export interface AuditExport {
  readonly entries: AuditEntry[];
  /** The C2SP signed note; null when the stream ended without it (the export is incomplete). */
  readonly checkpoint: string | null;
}

/** An auditor's client: the hash chain's pages and verification, signed checkpoints, Merkle proofs and the export. */
export class AuditorClient {
  constructor(readonly options: GateOptions) {}

  /** `GET …/audit`: a page of the chain, oldest first; `next_cursor` continues it (null at the end). */
  auditPage(page: AuditPageQuery = {}): Promise<ClientResult<z.output<typeof AuditPage>>> {
    return call(this.options, "GET", `/audit${query({ cursor: page.cursor, after: page.after, limit: page.limit })}`);
  }

  /** `GET …/audit/verify`: one step of the chain's verification walk (`cursor` continues it). */
  verify(cursor?: string): Promise<ClientResult<z.output<typeof AuditVerifyView>>> {
    return call(this.options, "GET", `/audit/verify${query({ cursor })}`);
  }

  /** `GET …/audit/checkpoint`: the latest signed checkpoint (signed first if the tree grew). */
  checkpoint(): Promise<ClientResult<z.output<typeof AuditCheckpointView>>> {
    return call(this.options, "GET", "/audit/checkpoint");
  }

  /** `GET …/audit/proof/inclusion`: entry `seq`'s RFC 9162 inclusion proof in the tree of `size` (default: the latest checkpoint's). */
  inclusionProof(
    proof: z.output<typeof AuditInclusionQuery>,
  ): Promise<ClientResult<z.output<typeof AuditInclusionView>>> {
    return call(this.options, "GET", `/audit/proof/inclusion${query({ seq: proof.seq, size: proof.size })}`);
  }

  /** `GET …/audit/proof/consistency`: the RFC 9162 consistency proof between two tree sizes. */
  consistencyProof(
    proof: z.output<typeof AuditConsistencyQuery>,
  ): Promise<ClientResult<z.output<typeof AuditConsistencyView>>> {
    return call(this.options, "GET", `/audit/proof/consistency${query({ from: proof.from, to: proof.to })}`);
  }

  /** `GET …/audit/export`: the whole log as NDJSON, read into its entries and closing checkpoint. */
  async export(): Promise<ClientResult<AuditExport>> {
    const answer = await callText(this.options, "/audit/export");
    if (!answer.ok) return answer;
    const entries: AuditEntry[] = [];
    let checkpoint: string | null = null;
    for (const line of answer.value.text.split("\n")) {
      if (line === "") continue;
      const value = readWire(line) as AuditEntry | { checkpoint: string };
      if ("checkpoint" in value) checkpoint = value.checkpoint;
      else entries.push(value);
    }
    return { ok: true, value: { entries, checkpoint } };
  }

  /** `GET /v1/audit/verifier-keys` (public): the checkpoints' C2SP verifier keys, the current one first. */
  verifierKeys(): Promise<ClientResult<z.output<typeof AuditVerifierKeys>>> {
    return call(this.options, "GET", "/v1/audit/verifier-keys", undefined, { gateWide: true });
  }
}
