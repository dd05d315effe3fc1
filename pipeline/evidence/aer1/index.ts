// AER-1 (draft-zambo-aer1-09) as the draft really writes it: timelines, their external
// commitments, and single receipts. Pure: inputs in, outcome out (docs/aer1.md).
export { verifyTimeline, TIMELINE_CATALOGUE, TIMELINE_CHECKS, TIMELINE_CHECK_CODES } from './timeline.ts';
export type { TimelineCheck, TimelineEntrySummary, TimelineReasonCode, TimelineStatus, TimelineVerification } from './timeline.ts';
export { commitmentBindings, decideSigners, indexCommitments, readCommitmentLine, readCommitmentText } from './commitments.ts';
export type {
  AgentKeyring,
  ChainCommitment,
  CommitmentBinding,
  CommitmentDocument,
  CommitmentIndex,
  CommitmentInformationalCode,
  CommitmentLine,
  CommitmentSignature,
  CommitmentSigner,
  CommitmentProvenance,
  CommitmentRoute,
  CommitmentSource,
  CommitmentWitness,
  MalformedCommitment,
} from './commitments.ts';
export { verifyReceipt, RECEIPT_CATALOGUE, RECEIPT_CHECKS, RECEIPT_CHECK_CODES } from './receipt.ts';
export type { ReceiptCheck, ReceiptReasonCode, ReceiptStatus, ReceiptVerification } from './receipt.ts';
export { reconcileTimeline, reconcileTools, TOOLS_CATALOGUE } from './expected-tools.ts';
export type { ExpectedTool, ToolReconciliation } from './expected-tools.ts';
export type { Construction } from './entry.ts';
export type { CheckOutcome } from '../check-outcome.ts';
