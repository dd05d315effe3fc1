// What every check of every witness reports: it held, it did not, or it could not run (or had
// nothing to check). One type for proofs, timestamp tokens, log entries and timelines alike.
export type CheckOutcome = 'pass' | 'fail' | 'skipped';
