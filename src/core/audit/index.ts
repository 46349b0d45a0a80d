/**
 * The audit log's pure parts, shared by the Worker and offline verifiers: the hash chain, the
 * RFC 9162 Merkle tree over entries, C2SP checkpoints and signed notes.
 * @module
 */
export { entryDigest, GENESIS_SHA256, verifyChain, type ChainEntry, type ChainVerification } from "./chain";
export {
  appendNodes,
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  leafHash,
  MerkleTree,
  nodeHash,
  rangeHash,
  rootHash,
  verifyConsistency,
  verifyInclusion,
  type NodeReader,
  type StoredNode,
} from "./merkle";
export { entryLeafHash, entryLine } from "./entry";
export { formatCheckpoint, parseCheckpoint, type Checkpoint, type CheckpointCode, type ParsedCheckpoint } from "./checkpoint";
export {
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signerFromSeed,
  signerKeyText,
  signNote,
  verifierKeyOf,
  type KeyCode,
  type NoteCode,
  type OpenedNote,
  type Signer,
  type Verifier,
} from "./note";
export { decodeBase64, encodeBase64 } from "./base64";
