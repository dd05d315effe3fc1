// The package's public entry (`import … from 'prereg'`): the verifiers the CLI runs, for a program
// that checks evidence without a study. Thin re-exports: the code is where the pipeline keeps it.
export { verifyEvidenceItem as verifyEvidence, verifyProof } from './evidence/arkforge/index.ts';
export type { EvidenceItem, ProofStatus, ProofVerification, StudyWindow } from './evidence/arkforge/index.ts';
export { verifyReceipt, verifyTimeline, indexCommitments, readCommitmentText } from './evidence/aer1/index.ts';
export type { CommitmentIndex, CommitmentLine, ReceiptVerification, TimelineVerification } from './evidence/aer1/index.ts';
export { loadTsaTrust, verifyTimestampToken } from './evidence/timestamp/index.ts';
export type { TimestampOptions, TimestampSubject, TimestampVerification, TsaReasonCode, TsaTrust } from './evidence/timestamp/index.ts';
export type { Sha2Hash } from './formats/hash-algorithms.ts';
export { canonicalJson, parseJson, CanonicalText, JsonParseError } from './formats/canonical-json.ts';
export type { JsonValue } from './formats/canonical-json.ts';
export { loadTrust, trustFromMemory } from './study/trust.ts';
export type { LoadedTrust } from './study/trust.ts';
export type { TrustMaterial } from './evidence/trust/index.ts';
export { UNBOUNDED_WINDOW } from './verify/inputs.ts';
/** What verifyFiles verifies against: `{ trust: loadTrust(dir).material.inputs, window, commitments, agent_keys? }`. */
export type { VerifyContextInputs } from './evidence/task/index.ts';
export { expandPaths, verifyFiles, type FileVerification } from './verify/file-verify.ts';
// The participant's tools (docs/participating.md): the same code as `prereg submission build`,
// `prereg commitment` and the agent-key registration of `prereg dev keys`.
export { buildSubmissionLine } from './participant/submission-line.ts';
export type { BuildContext, BuiltSubmission, EvidenceInput, SubmissionInput } from './participant/submission-line.ts';
export { commitTimeline } from './participant/commitment.ts';
export type { CommitmentResult, PublishedCommitment } from './participant/commitment.ts';
export { agentKeyRegistration } from './participant/agent-key.ts';
export type { AgentKeyRegistration } from './participant/agent-key.ts';
