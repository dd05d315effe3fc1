// One unit of evidence work as plain data (an evidence item, a timeline, a receipt) and the one
// function that runs it: what the worker threads and the single-file `verify` both call.
export { agentKeyring, buildVerifyContext, runVerifyTask, verifyParsedDocument } from './verify-task.ts';
export type { ParsedDocument, VerifyContext, VerifyContextInputs, VerifyOutcome, VerifyTask } from './verify-task.ts';
