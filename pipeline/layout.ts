// Where a study keeps its files (SPEC §2). Every stage takes paths from here, relative to --root.
import { join, relative, resolve, sep } from 'node:path';

export interface StudyLayout {
  root: string;
  corpus: string;
  preregistration: string;
  plan: string;
  study: string;
  freeze: string;
  anchors: string;
  trust: string;
  inputs: string;
  submissions: string;
  commitments: string;
  /** inputs/commitments/: each system's own commitments, received through intake (SPEC §12.2). */
  participantCommitments: string;
  /** inputs/intake.jsonl: the hash-chained intake log. */
  intakeLog: string;
  /** inputs/seal.json, and its anchors in inputs/anchors/. */
  seal: string;
  sealAnchors: string;
  /** inputs/deviations.jsonl: the operator's signed, dated, chained deviations from the plan (SPEC §13.3). */
  deviations: string;
  answerKey: string;
  answerKeySecret: string;
  outputs: string;
  work: string;
}

export function studyLayout(root: string): StudyLayout {
  const r = resolve(root);
  const prereg = join(r, 'preregistration');
  const inputs = join(r, 'inputs');
  return {
    root: r,
    corpus: join(r, 'corpus'),
    preregistration: prereg,
    plan: join(prereg, 'PREREGISTRATION.md'),
    study: join(prereg, 'study.json'),
    freeze: join(prereg, 'freeze.json'),
    anchors: join(prereg, 'anchors'),
    trust: join(prereg, 'trust'),
    inputs,
    submissions: join(inputs, 'submissions'),
    commitments: join(inputs, 'commitments.jsonl'),
    participantCommitments: join(inputs, 'commitments'),
    intakeLog: join(inputs, 'intake.jsonl'),
    seal: join(inputs, 'seal.json'),
    sealAnchors: join(inputs, 'anchors'),
    deviations: join(inputs, 'deviations.jsonl'),
    answerKey: join(inputs, 'answer-key.jsonl'),
    answerKeySecret: join(inputs, 'answer-key.secret'),
    outputs: join(r, 'outputs'),
    work: join(r, 'work'),
  };
}

/** Studies are addressed with "/" whatever the platform. */
export function studyRelative(layout: StudyLayout, path: string): string {
  return relative(layout.root, path).split(sep).join('/');
}
