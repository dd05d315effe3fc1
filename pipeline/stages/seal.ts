// `prereg seal` (SPEC §12.2): closes the intake after closes_at. Writes inputs/seal.json — the
// RFC 6962 root over the intake log's entry digests, the log head, the final file of each system
// and kind (its latest entry) plus the operator-collected inputs/commitments.jsonl, the
// freeze_digest and closes_at — and anchors seal_digest = SHA-256(canonical seal.json) with
// RFC 3161 tokens in inputs/anchors/. Refuses, writing nothing: a token dated before closes_at
// (SEAL_EARLY) or after closes_at + intake.seal_within_s (SEAL_LATE), a governed file that is not
// its latest entry's or was never received (INTAKE_DRIFT), a file that is not a regular file
// (INPUT_NOT_REGULAR_FILE / SUBMISSION_PATH_UNSAFE), an existing seal (SEAL_EXISTS). Holds the study lock.
import { lstatSync } from 'node:fs';
import { latestEntries } from '../evidence/intake/log.ts';
import {
  GENESIS_PREV,
  logRoot,
  SEAL_FORMAT,
  sealDigest,
  storedPath,
  type SealedFile,
  type SealRecord,
} from '../evidence/intake/records.ts';
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { currentInputFiles, fileDrift } from '../intake/files.ts';
import { readIntakeLog } from '../intake/log.ts';
import { writeSealAnchor } from '../intake/seal-anchors.ts';
import { loadFrozenStudy } from '../study/frozen-study.ts';
import { obtainTokens } from '../intake/tokens.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { studyLayout, studyRelative, type StudyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { intakeOf } from '../study/study.ts';
import { parseTsaOverrides, positiveInt } from '../options.ts';
import type { Command } from '../command.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';

export const seal: Command = {
  name: 'seal',
  summary: 'close the intake after closes_at: inputs/seal.json (log root, head, final files) anchored by RFC 3161 tokens',
  help: [
    'usage: prereg seal [--tsa NAME=URL]… [--timeout-ms N] [--retries N] [--root DIR] [--json]',
    '',
    'Writes inputs/seal.json and its tokens (inputs/anchors/<witness>.tsr + .json). Every TSA of',
    'study.json anchors.tsas (or --tsa) is asked; each token must verify and be dated in',
    '[closes_at, closes_at + intake.seal_within_s]: else SEAL_EARLY / SEAL_LATE, nothing written.',
    'After the seal, ingest and run read exactly the sealed files (INTAKE_DRIFT otherwise).',
    'docs/intake.md.',
  ].join('\n'),
  options: { tsa: { type: 'string', multiple: true }, 'timeout-ms': { type: 'string' }, retries: { type: 'string' } },
  stage: true,
  jsonSchema: () => 'prereg.seal/1',
  writesStudy: () => true,
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const { frozen, freezeDigest, study, trust } = loadFrozenStudy(loadStudyFiles(layout));
    if (lstatSync(layout.seal, { throwIfNoEntry: false }))
      throw new PreregError('SEAL_EXISTS', 'inputs/seal.json already exists; nothing was written');
    const log = await readIntakeLog(layout);
    const record: SealRecord = {
      format: SEAL_FORMAT,
      study_id: study.study_id,
      freeze_digest: freezeDigest,
      closes_at: frozen.window.closes_at,
      log: { entries: log.entries.length, root: logRoot(log.digests), head: log.digests[log.digests.length - 1] ?? GENESIS_PREV },
      files: sealedFiles(layout, latestEntries(log.entries)),
    };
    const digest = sealDigest(record);
    const tokens = await obtainTokens(parseTsaOverrides(ctx.values.tsa) ?? study.anchors.tsas, Buffer.from(digest, 'hex'), trust.tsa, {
      timeoutMs: positiveInt(ctx.values['timeout-ms'], 10_000, '--timeout-ms'),
      retries: positiveInt(ctx.values.retries, 3, '--retries'),
      progress: ctx.progress,
      want: 'all',
    });
    const closes = utcMillis(record.closes_at)!;
    const within = intakeOf(study).seal_within_s;
    for (const t of tokens) {
      const at = utcMillis(t.genTime)!;
      if (at < closes)
        throw new PreregError(
          'SEAL_EARLY',
          `${t.witness} dated the seal ${t.genTime}, before closes_at ${record.closes_at}: submissions are still open; nothing was written`,
        );
      if (at > closes + within * 1000)
        throw new PreregError(
          'SEAL_LATE',
          `${t.witness} dated the seal ${t.genTime}, more than intake.seal_within_s = ${within} s after closes_at ${record.closes_at}; nothing was written`,
        );
    }
    const now = new Date().toISOString();
    for (const t of tokens) writeSealAnchor(layout.sealAnchors, t.tsr, t.witness, t.url, digest, now);
    // seal.json last: its existence is what closes the intake.
    writeFileAtomic(layout.seal, `${JSON.stringify(JSON.parse(canonicalJson(record)), null, 2)}\n`);
    const json = {
      ok: true,
      seal_digest: digest,
      log: record.log,
      files: record.files,
      anchors: tokens.map((t) => ({ witness: t.witness, gen_time: t.genTime })),
    };
    return {
      exitCode: EXIT.ok,
      json,
      text: [
        `sealed ${study.study_id}: ${record.log.entries} intake entries (root ${record.log.root}), ${record.files.length} file(s)`,
        `seal_digest ${digest}`,
        ...tokens.map((t) => `  anchored by ${t.witness} (genTime ${t.genTime})`),
      ].join('\n'),
    };
  },
};

/**
 * The final file of each system and kind (its latest entry's, which must be on disk as received),
 * plus inputs/commitments.jsonl when present. A governed file no entry received is refused.
 */
function sealedFiles(layout: StudyLayout, latest: ReturnType<typeof latestEntries>): SealedFile[] {
  const expected: SealedFile[] = latest.map((e) => ({
    path: storedPath(e.request.kind, e.request.system_id),
    bytes: e.request.bytes,
    sha256: e.request.sha256,
  }));
  if (lstatSync(layout.commitments, { throwIfNoEntry: false })) {
    const data = readRegularFile(layout.commitments);
    expected.push({ path: studyRelative(layout, layout.commitments), bytes: data.length, sha256: sha256Hex(data) });
  }
  const drift = fileDrift(expected, currentInputFiles(layout), 'received through intake');
  if (drift.length > 0) {
    throw new PreregError('INTAKE_DRIFT', `${drift.map((d) => d.message).join('; ')}; nothing was written`, { file: drift[0]!.file });
  }
  return expected.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}
