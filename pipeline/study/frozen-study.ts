// The study as it was frozen, for a command that stands on it: freeze.json, its digest, study.json
// and the trust directory, each of the last two refused unless it is the file freeze.json recorded
// (STUDY_DRIFT, TRUST_DRIFT). What intake, seal, a receipt check and emit stand on: study.json's
// agent keys and report block, the trust directory's TSA roots and pinned keys.
import { PreregError } from '../reasons.ts';
import { refuseDrift, trustDrift } from './drift.ts';
import type { FreezeRecord } from './freeze-record.ts';
import type { LoadedStudy } from './loaded-study.ts';
import type { StudyConfig } from './study.ts';
import type { LoadedTrust } from './trust.ts';

export interface FrozenStudy {
  frozen: FreezeRecord;
  freezeDigest: string;
  study: StudyConfig;
  trust: LoadedTrust;
  /** The files it was read from (the pinned keys, the items file: from the same reads). */
  loaded: LoadedStudy;
}

/** `use` says, in a drift refusal, what the frozen files are needed for (e.g. "intake verifies only against the frozen trust directory"). */
export function loadFrozenStudy(loaded: LoadedStudy, use = 'intake verifies only against the frozen trust directory'): FrozenStudy {
  const frozen = loaded.frozen();
  // Hashed and parsed from one read (loaded-study.ts): the study that counts is the one whose digest was compared.
  const studySha = loaded.studySha256();
  if (studySha !== frozen.study_sha256) {
    throw new PreregError(
      'STUDY_DRIFT',
      `preregistration/study.json is ${studySha}; freeze.json recorded ${frozen.study_sha256}: only the frozen study.json counts (its agent keys, intake settings and report)`,
      { file: 'preregistration/study.json' },
    );
  }
  refuseDrift(trustDrift(frozen.trust, loaded.trustTree()), use);
  return { frozen, freezeDigest: loaded.freezeDigest(), study: loaded.study(), trust: loaded.trust(), loaded };
}
