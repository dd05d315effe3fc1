// ArkForge proofs and evidence items (SPEC §6.1): verify one against the pinned trust material
// and the study window. What the rest of the pipeline imports; the files beside it are the parts.
export { verifyEvidenceItem, verifyProof } from './verify-item.ts';
export { unparsedProofVerification } from './verification.ts';
export type { ProofTlogOutcome, ProofTsaOutcome, ProofVerification, StudyWindow } from './verification.ts';
export { PROOF_CATALOGUE, PROOF_CHECKS, PROOF_CODES, proofStatus } from './checks.ts';
export type { CheckOutcome, ProofCheck, ProofCode, ProofParseCode, ProofStatus } from './checks.ts';
export type { EvidenceItem } from './item.ts';
export type { BatchReport } from './batch-anchor.ts';
export { KNOWN_SPEC_VERSIONS, proofVersionModule } from './versions/index.ts';
export type { ArkForgeProof, ChainAlgorithm } from './versions/index.ts';
