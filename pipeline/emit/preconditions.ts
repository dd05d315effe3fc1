// What emit refuses before anything is written (SPEC §7): no freeze, a trust directory that drifted
// from the frozen one (the operator key is pinned there), operator keys that are not the pinned
// one, and no store. An audit's rerun passes no keys: it writes everything but the signatures.
import { existsSync } from 'node:fs';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { refuseDrift, trustDrift } from '../study/drift.ts';
import { digestTree } from '../study/file-tree.ts';
import { loadFreezeRecord, type FreezeRecord } from '../study/freeze-record.ts';
import { pinnedOperatorKey } from '../study/operator-key.ts';
import { loadStudy, type StudyConfig } from '../study/study.ts';
import { loadTrust, type LoadedTrust } from '../study/trust.ts';
import { checkOperatorKeys, loadOperatorKeys, type OperatorKeyPems, type OperatorKeys } from './sign.ts';

export interface EmitStudy {
  frozen: FreezeRecord;
  study: StudyConfig;
  trust: LoadedTrust;
  /** The operator's keys, checked against the pinned one; null for an unsigned emit. */
  keys: OperatorKeys | null;
}

export function emitPreconditions(layout: StudyLayout, keyPems: OperatorKeyPems | null, storeFile: string): EmitStudy {
  if (!existsSync(layout.freeze)) {
    throw new PreregError('FREEZE_MISSING', `${layout.freeze} does not exist; run \`prereg freeze\``);
  }
  const frozen = loadFreezeRecord(layout.freeze);
  const study = loadStudy(layout.study);
  refuseDrift(trustDrift(frozen.trust, digestTree(layout.trust)), 'emit signs only with the frozen trust directory');
  const trust = loadTrust(layout.trust);
  const pinned = pinnedOperatorKey(layout.trust, trust.policy);
  const keys = keyPems === null ? null : loadOperatorKeys(keyPems);
  if (keys) checkOperatorKeys(keys, pinned);
  if (!existsSync(storeFile)) {
    throw new PreregError('OUTPUT_STORE_INCOMPLETE', `no store at ${storeFile}; run the pipeline up to score first`, { path: storeFile });
  }
  return { frozen, study, trust, keys };
}
