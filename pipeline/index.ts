// The package's public entry (`import … from 'prereg'`): the verifiers the CLI runs, for a program
// that checks evidence without a study. Thin re-exports: the code is where the pipeline keeps it.
export { verifyEvidenceItem as verifyEvidence, verifyProof } from './evidence/arkforge-proof.ts';
export type { EvidenceItem, ProofStatus, ProofVerification, StudyWindow } from './evidence/arkforge-proof.ts';
export { verifyReceipt, verifyTimeline, indexCommitments, readCommitmentText } from './evidence/aer1/index.ts';
export type { CommitmentIndex, CommitmentLine, ReceiptVerification, TimelineVerification } from './evidence/aer1/index.ts';
export { canonicalJson, parseJson, CanonicalText, JsonParseError } from './formats/canonical-json.ts';
export type { JsonValue } from './formats/canonical-json.ts';
export { loadTrust } from './io/trust-files.ts';
export type { LoadedTrust } from './io/trust-files.ts';
export type { TrustMaterial } from './evidence/trust-material.ts';
export { UNBOUNDED_WINDOW } from './verify/inputs.ts';
export { expandPaths, verifyFiles, type FileVerification } from './verify/file-verify.ts';
