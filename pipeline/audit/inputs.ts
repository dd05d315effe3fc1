// The inputs rail: every input digest manifest.json recorded (docs/outputs.md, `inputs`) against
// what the study's files give now, naming the first input file that differs.
//
// The frozen roots (corpus, section 5, answer key, trust) are recomputed from the files, not read
// from freeze.json, and freeze.json is the third account that tells which side changed: a corpus
// root that differs is pinned on the corpus file that differs from freeze.json's file list; when
// the files agree with freeze.json and only the manifest says otherwise, manifest.json is named.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '../emit/manifest.ts';
import type { EmitInputs } from '../results/shapes.ts';
import { commitAnswerKey } from '../study/answer-key.ts';
import { readAnswerKey, resolveSecret } from '../freeze/answer-key-file.ts';
import { intakeRecordFiles } from '../intake/files.ts';
import { listAnchorFiles } from '../freeze/anchors.ts';
import { diffTrees, digestTree, type TreeDigest } from '../study/file-tree.ts';
import type { FreezeRecord } from '../study/freeze-record.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { readSection5 } from '../study/section5.ts';
import type { ReasonCode } from '../reasons.ts';
import { collect, type Precondition } from '../study/preconditions.ts';
import { listSubmissionFiles } from '../ingest/submission-files.ts';
import { railOf, type Difference, type Rail } from './rails.ts';
import type { DeviationsAudited } from './deviations.ts';
import { DEVIATION_LOG } from '../deviations/log.ts';
import { sha256Hex } from '../formats/hash.ts';
import { sha256OfFile, sha256OfFileIfAny } from '../io/file-hash.ts';
import { readRegularFile } from '../io/regular-file.ts';

const MANIFEST = 'manifest.json';
const FREEZE = 'preregistration/freeze.json';
const PLAN = 'preregistration/PREREGISTRATION.md';
const ANSWER_KEY = 'inputs/answer-key.jsonl';

/** Runs one input's check; a refusal while reading it becomes a difference naming that input. */
function attempt(file: string, d: Difference[], codes: ReasonCode[], check: () => void): void {
  const problems: Precondition[] = [];
  collect(problems, check);
  for (const p of problems) {
    codes.push(p.code);
    d.push({ file, ...(p.line !== undefined ? { row: p.line } : {}), message: `cannot be read: ${p.code}: ${p.message}` });
  }
}

/** The tree root recorded by the manifest against the files, with freeze.json's file list as witness. */
function treeDifference(prefix: string, recorded: string, now: TreeDigest, frozen: TreeDigest | null, what: string): Difference | null {
  if (now.root === recorded) return null;
  const changes = frozen ? diffTrees(frozen.files, now.files) : [];
  if (changes.length > 0) {
    const change = changes[0]!;
    const path = change.slice(0, change.lastIndexOf(':'));
    return {
      file: prefix + path,
      message: `${change.slice(path.length + 2)} since the freeze: ${what} is now ${now.root}, the manifest recorded ${recorded}`,
    };
  }
  if (frozen && frozen.root === now.root)
    return { file: MANIFEST, message: `records ${what} ${recorded}; the files and freeze.json give ${now.root}` };
  return { file: frozen ? FREEZE : prefix, message: `${what} is now ${now.root}, the manifest recorded ${recorded}` };
}

/**
 * `deviations`: the deviations log's own checks (audit/deviations.ts), reported here beside the
 * digest the manifest recorded for it.
 */
export function inputsRail(fields: Manifest | null, loaded: LoadedStudy, env: NodeJS.ProcessEnv, deviations: DeviationsAudited): Rail {
  const { layout } = loaded;
  if (!fields) return railOf('inputs', '', [{ file: MANIFEST, message: 'is missing or unreadable: the recorded inputs are unknown' }]);
  const recorded: EmitInputs = fields.inputs;
  const d: Difference[] = [];
  const codes: ReasonCode[] = [];
  let frozen: FreezeRecord | null = null;
  try {
    frozen = loaded.frozen();
  } catch {
    // Reported below, as freeze_digest.
  }

  attempt('corpus/', d, codes, () => {
    const diff = treeDifference('corpus/', recorded.corpus_root, digestTree(layout.corpus), frozen?.corpus ?? null, 'corpus_root');
    if (diff) d.push(diff);
  });

  attempt(PLAN, d, codes, () => {
    const section5 = readSection5(layout);
    const now = section5?.sha256 ?? null;
    if (now === recorded.section5_sha256) return;
    if (now !== null && frozen?.section5_sha256 === now)
      d.push({ file: MANIFEST, message: `records section5_sha256 ${recorded.section5_sha256}; section 5 and freeze.json give ${now}` });
    else
      d.push({
        file: PLAN,
        message: now === null ? 'has no section 5' : `section 5 hashes to ${now}; the manifest recorded ${recorded.section5_sha256}`,
      });
  });

  attempt(ANSWER_KEY, d, codes, () => {
    const secret = resolveSecret(layout, undefined, env);
    if (!secret) {
      d.push({
        file: 'inputs/answer-key.secret',
        message: 'is absent (and no $PREREG_ANSWER_KEY_SECRET): the revealed key cannot reproduce answer_key_root',
      });
      return;
    }
    const now = commitAnswerKey(secret, readAnswerKey(layout.answerKey));
    if (now.root === recorded.answer_key_root) return;
    const committed = frozen && frozen.answer_key.root === recorded.answer_key_root ? frozen.answer_key.leaves : null;
    const differing = committed ? now.leaves.map((leaf, i) => (leaf === committed[i] ? -1 : i)).filter((i) => i >= 0) : [];
    if (committed && differing.length > 1 && differing.length === Math.max(now.leaves.length, committed.length)) {
      d.push({
        file: existsSync(layout.answerKeySecret) ? 'inputs/answer-key.secret' : ANSWER_KEY,
        message: "every item's salted leaf differs from the commitment: the secret is not the committed one",
      });
    } else {
      const first = differing[0] ?? (committed ? Math.min(now.leaves.length, committed.length) : undefined);
      d.push({
        file: ANSWER_KEY,
        ...(first !== undefined ? { row: first + 1 } : {}),
        message: `the revealed key gives answer_key_root ${now.root}; the manifest recorded ${recorded.answer_key_root}`,
      });
    }
  });

  attempt('preregistration/trust/', d, codes, () => {
    const diff = treeDifference('preregistration/trust/', recorded.trust_root, loaded.trustTree(), frozen?.trust ?? null, 'trust_root');
    if (diff) d.push(diff);
  });

  attempt(FREEZE, d, codes, () => {
    const now = loaded.freezeDigest();
    if (now !== recorded.freeze_digest)
      d.push({ file: FREEZE, message: `freeze_digest is now ${now}; the manifest recorded ${recorded.freeze_digest}` });
  });

  attempt('inputs/submissions/', d, codes, () => {
    const now = new Map(
      listSubmissionFiles(layout).files.map((f) => {
        const bytes = readRegularFile(f.path);
        return [f.file, { sha256: sha256Hex(bytes), bytes: bytes.length }] as const;
      }),
    );
    const before = new Map(recorded.submissions.map((s) => [s.file, s]));
    for (const file of [...new Set([...before.keys(), ...now.keys()])].sort()) {
      const was = before.get(file);
      const is = now.get(file);
      if (!is) d.push({ file, message: 'was read by the run but is missing now' });
      else if (!was) d.push({ file, message: 'is a submission file the run did not read' });
      else if (was.sha256 !== is.sha256 || was.bytes !== is.bytes)
        d.push({ file, message: `has SHA-256 ${is.sha256} (${is.bytes} bytes); the run read ${was.sha256} (${was.bytes} bytes)` });
    }
  });

  attempt('inputs/commitments.jsonl', d, codes, () => {
    const now = sha256OfFileIfAny(layout.commitments);
    if (now !== recorded.commitments_sha256)
      d.push({
        file: 'inputs/commitments.jsonl',
        message: `is now ${now ?? 'absent'}; the manifest recorded ${recorded.commitments_sha256 ?? 'none'}`,
      });
  });

  attempt(DEVIATION_LOG, d, codes, () => {
    const now = sha256OfFileIfAny(layout.deviations);
    if (now !== recorded.deviations_sha256) {
      d.push({
        file: DEVIATION_LOG,
        message: `DEVIATION_LOG_CHANGED: is now ${now ?? 'absent'}; the manifest recorded ${recorded.deviations_sha256 ?? 'none'} (a deviation removed, edited or added after the outputs)`,
      });
      codes.push('DEVIATION_LOG_CHANGED');
    }
  });
  d.push(...deviations.differences);
  codes.push(...deviations.codes);

  const compareFiles = (now: Map<string, string>, recordedFiles: ReadonlyArray<{ file: string; sha256: string }>, what: string) => {
    const before = new Map(recordedFiles.map((a) => [a.file, a.sha256]));
    for (const file of [...new Set([...before.keys(), ...now.keys()])].sort()) {
      if (before.get(file) !== now.get(file))
        d.push({
          file,
          message: now.has(file)
            ? before.has(file)
              ? `differs from the ${what} the manifest recorded`
              : `is ${what === 'anchor file' ? 'an anchor' : `an ${what}`} the manifest did not record`
            : 'was recorded by the manifest but is missing now',
        });
    }
  };
  attempt('preregistration/anchors/', d, codes, () => {
    compareFiles(
      new Map(listAnchorFiles(layout.anchors).map((f) => [`preregistration/anchors/${f}`, sha256OfFile(join(layout.anchors, f))])),
      recorded.anchors,
      'anchor file',
    );
  });
  attempt('inputs/intake.jsonl', d, codes, () => {
    compareFiles(new Map(intakeRecordFiles(layout).map((f) => [f.file, f.sha256])), recorded.intake_files, 'intake file');
  });

  return railOf(
    'inputs',
    `corpus_root, section5_sha256, answer_key_root, trust_root, freeze_digest, every submission file, commitments, anchors, intake files and the deviations log are what the manifest recorded; ${deviations.entries} deviation(s) signed by the pinned operator key, dated after the freeze and chained`,
    d,
    codes,
  );
}
