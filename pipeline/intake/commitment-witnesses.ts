// Who dated each commitments file (SPEC §5.2, §12.2): a commitment's published_at is its
// committer's claim; the time that counts is a TSA's. A system's own file
// (inputs/commitments/<system_id>.jsonl) is dated by the intake entry that took it in, the
// operator-collected inputs/commitments.jsonl by the seal that closed the intake. A token counts
// only once it verifies over its digest under the study's pinned TSA roots; a file no token dates
// has no witness (outside intake, or before the seal), and only the window then bounds its claims.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitmentWitness } from '../evidence/aer1/index.ts';
import { latestEntries } from '../evidence/intake/log.ts';
import { sealDigest, sealProblems, type SealRecord } from '../evidence/intake/records.ts';
import { compareInstants, parseRfc3339 } from '../formats/rfc3339.ts';
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { sha256OfFileIfAny } from '../io/file-hash.ts';
import { readJsonFile } from '../io/json-files.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { StudyLayout } from '../layout.ts';
import type { CommitmentsFile } from './files.ts';
import { readIntakeLogFile } from './log.ts';

const LOG = 'inputs/intake.jsonl';

/**
 * The witness of each file of `files` that one dates, by its study-relative path: for a system's
 * own file, its latest commitments entry in the log when that entry received these very bytes;
 * for the operator's, the earliest seal anchor when the seal lists these very bytes.
 */
export async function commitmentWitnesses(
  layout: StudyLayout,
  files: readonly CommitmentsFile[],
  tsa: TsaTrust,
): Promise<Map<string, CommitmentWitness>> {
  const out = new Map<string, CommitmentWitness>();
  const own = files.filter((f) => f.owner !== null);
  if (own.length > 0) {
    // Entries up to the log's first bad line: a broken log is the audit's finding (intake rail).
    const log = await readIntakeLogFile(layout.intakeLog, LOG);
    const latest = latestEntries(log.entries).filter((e) => e.request.kind === 'commitments');
    for (const f of own) {
      const entry = latest.find((e) => e.request.system_id === f.owner);
      if (entry === undefined || entry.request.sha256 !== sha256OfFileIfAny(f.path)) continue;
      const i = log.entries.indexOf(entry);
      const token = await verifyTimestampToken(Buffer.from(entry.token, 'base64'), Buffer.from(log.digests[i]!, 'hex'), tsa);
      if (token.ok && token.genTime !== undefined) out.set(f.file, { by: `${LOG}:${i + 1}`, at: token.genTime });
    }
  }
  const operator = files.find((f) => f.owner === null);
  const seal = operator !== undefined ? readSeal(layout) : null;
  if (
    operator !== undefined &&
    seal !== null &&
    seal.files.some((s) => s.path === operator.file && s.sha256 === sha256OfFileIfAny(operator.path))
  ) {
    const witness = await earliestSealAnchor(layout, seal, tsa);
    if (witness !== null) out.set(operator.file, witness);
  }
  return out;
}

/** inputs/seal.json when it exists and has the seal's shape; else null (its problems are the audit's and ingest's). */
function readSeal(layout: StudyLayout): SealRecord | null {
  if (!lstatSync(layout.seal, { throwIfNoEntry: false })) return null;
  const value = readJsonFile(layout.seal);
  return sealProblems(value).length === 0 ? (value as SealRecord) : null;
}

/** The earliest anchor of inputs/anchors/ that dates the seal's digest under the pinned roots. */
async function earliestSealAnchor(layout: StudyLayout, seal: SealRecord, tsa: TsaTrust): Promise<CommitmentWitness | null> {
  if (!lstatSync(layout.sealAnchors, { throwIfNoEntry: false })) return null;
  const digest = Buffer.from(sealDigest(seal), 'hex');
  let best: CommitmentWitness | null = null;
  for (const name of readdirSync(layout.sealAnchors)
    .filter((n) => n.endsWith('.tsr'))
    .sort()) {
    const token = await verifyTimestampToken(readRegularFile(join(layout.sealAnchors, name)), digest, tsa);
    if (!token.ok || token.genTime === undefined) continue;
    if (best === null || compareInstants(parseRfc3339(token.genTime)!, parseRfc3339(best.at)!) < 0)
      best = { by: `inputs/anchors/${name}`, at: token.genTime };
  }
  return best;
}
