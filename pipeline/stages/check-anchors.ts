// `prereg check-anchors` (what CI runs): offline, recomputes every frozen digest from the files and
// verifies every anchor token against the pinned TSA roots. Exit 0 all good, 1 drift or a bad
// anchor, 3 when it cannot run at all (no freeze.json, unreadable study.json).
import { runCheckAnchors } from '../freeze/check-anchors.ts';
import { ANCHOR_AUDITOR_OPTIONS } from '../options.ts';
import type { Command } from '../command.ts';

export const checkAnchors: Command = {
  name: 'check-anchors',
  summary: 'recompute every frozen digest and verify every anchor, offline (for CI)',
  help: [
    'usage: prereg check-anchors [--tsa-root PEM]… [--expect-freeze HEX] [--min-witnesses N]',
    '                            [--root DIR] [--json]',
    '',
    'Recomputes the corpus root, vocabulary, section 5, every section of PREREGISTRATION.md,',
    'study.json and trust digests and freeze_digest from the files; verifies every',
    'preregistration/anchors/*.tsr (CMS signature, ESSCertID binding, chain to a TSA root,',
    'timeStamping EKU, imprint, genTime before opens_at); checks the chain of freezes',
    '(amendments kept under preregistration/amendments/, each anchored before the earliest',
    'opens_at); checks the answer-key commitment when the key has been revealed under inputs/;',
    'runs the checks freeze runs (trust files, operator key, vocabulary, section-5 dry run).',
    '',
    "  --tsa-root PEM       judge the anchors against these roots (yours), not the study's own;",
    '                       a token that chains only to a study root is listed and not counted',
    '  --expect-freeze HEX  the freeze_digest you saw published before opens_at',
    "                       (FREEZE_DIGEST_UNEXPECTED when the study's differs)",
    '  --min-witnesses N    witnesses required, counted by distinct root (default 1, or the',
    "                       study's anchors.min_witnesses if higher): no anchor is never a pass",
    "Without --tsa-root the study's own roots are used (the operator's CI), and the output says so.",
    'Exit 0 when everything holds, 1 on drift or a bad anchor, 3 when it cannot run.',
  ].join('\n'),
  options: ANCHOR_AUDITOR_OPTIONS,
  stage: true,
  jsonSchema: () => 'prereg.check-anchors/1',
  run: runCheckAnchors,
};
