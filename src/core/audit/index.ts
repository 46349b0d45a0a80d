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
  leafHashWith,
  MerkleTree,
  nodeHash,
  rangeHash,
  rootHash,
  verifyConsistency,
  verifyInclusion,
  type NodeReader,
  type StoredNode,
} from "./merkle";
export { entryLeafHash, entryLine, MAX_ENTRY_LINE_BYTES, readEntryLine } from "./entry";
export { sameBytes } from "./same-bytes";
export {
  archivedNodeBound,
  decodeEntryBundle,
  decodeHashTile,
  encodeEntryBundle,
  encodeHashTile,
  entryTilePath,
  hashTilePath,
  MAX_BUNDLE_ENTRY_BYTES,
  nodeInTile,
  subtreeOfTile,
  TILE_HEIGHT,
  TILE_WIDTH,
  tileIndexPath,
  tilesCompletedBy,
  tileSpan,
  type NodeInTile,
} from "./tiles";
export {
  formatCheckpoint,
  parseCheckpoint,
  type Checkpoint,
  type CheckpointCode,
  type ParsedCheckpoint,
} from "./checkpoint";
export {
  noteKeys,
  openNote,
  signNote,
  verifierKeyOf,
  type Ed25519,
  type KeyCode,
  type NoteCode,
  type NoteKeys,
  type OpenedNote,
  type Signer,
  type Verifier,
} from "./note";
export { nobleEd25519, parseSignerKey, parseVerifierKey, signerFromSeed, signerKeyText } from "./note-noble";
export { decodeBase64, encodeBase64 } from "./base64";
