// What intake, seal and a receipt check stand on: the frozen study as it was frozen. study.json
// (whose agent_keys verify requests) and the trust directory (which pins the TSA roots and the
// intake key) must be the files freeze.json recorded; anything else is their drift code.
import { sha256Hex } from '../formats/hash.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { refuseDrift, trustDrift } from '../study/drift.ts';
import { digestTree } from '../study/file-tree.ts';
import { freezeDigest, loadFreezeRecord, type FreezeRecord } from '../study/freeze-record.ts';
import { loadStudy, type StudyConfig } from '../study/study.ts';
import { loadTrust, type LoadedTrust } from '../study/trust.ts';

export interface FrozenStudy {
  frozen: FreezeRecord;
  freezeDigest: string;
  study: StudyConfig;
  trust: LoadedTrust;
}

export function loadFrozenStudy(layout: StudyLayout): FrozenStudy {
  const frozen = loadFreezeRecord(layout.freeze);
  const studySha = sha256Hex(readRegularFile(layout.study));
  if (studySha !== frozen.study_sha256) {
    throw new PreregError('STUDY_DRIFT', `preregistration/study.json is ${studySha}; freeze.json recorded ${frozen.study_sha256}: the agent keys and the intake settings are the frozen ones only`, { file: 'preregistration/study.json' });
  }
  refuseDrift(trustDrift(frozen.trust, digestTree(layout.trust)), 'intake verifies only against the frozen trust directory');
  return { frozen, freezeDigest: freezeDigest(frozen), study: loadStudy(layout.study), trust: loadTrust(layout.trust) };
}
