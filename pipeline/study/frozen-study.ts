// The study as it was frozen, loaded once for a command: freeze.json, its digest, study.json and
// the trust directory, each of the last two refused unless it is the file freeze.json recorded
// (STUDY_DRIFT, TRUST_DRIFT). What intake, seal, a receipt check and emit stand on: study.json's
// agent keys and report block, the trust directory's TSA roots and pinned keys.
import { sha256Hex } from '../formats/hash.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { refuseDrift, trustDrift } from './drift.ts';
import { digestTree } from './file-tree.ts';
import { freezeDigest, loadFreezeRecord, type FreezeRecord } from './freeze-record.ts';
import { studyFromBytes, type StudyConfig } from './study.ts';
import { loadTrust, type LoadedTrust } from './trust.ts';

export interface FrozenStudy {
  frozen: FreezeRecord;
  freezeDigest: string;
  study: StudyConfig;
  trust: LoadedTrust;
}

/** `use` says, in a drift refusal, what the frozen files are needed for (e.g. "intake verifies only against the frozen trust directory"). */
export function loadFrozenStudy(layout: StudyLayout, use = 'intake verifies only against the frozen trust directory'): FrozenStudy {
  const frozen = loadFreezeRecord(layout.freeze);
  // Hashed and parsed from one read: the study that counts is the one whose digest was compared.
  const studyBytes = readRegularFile(layout.study);
  const studySha = sha256Hex(studyBytes);
  if (studySha !== frozen.study_sha256) {
    throw new PreregError('STUDY_DRIFT', `preregistration/study.json is ${studySha}; freeze.json recorded ${frozen.study_sha256}: only the frozen study.json counts (its agent keys, intake settings and report)`, { file: 'preregistration/study.json' });
  }
  refuseDrift(trustDrift(frozen.trust, digestTree(layout.trust)), use);
  return { frozen, freezeDigest: freezeDigest(frozen), study: studyFromBytes(studyBytes, layout.study), trust: loadTrust(layout.trust) };
}
