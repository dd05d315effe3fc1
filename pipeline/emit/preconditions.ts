// What emit refuses before anything is written (SPEC §7): no freeze, a study.json or trust
// directory that drifted from the frozen one (the report block and the operator key are theirs),
// operator keys that are not the pinned one, and no store. An audit's rerun passes no keys: it writes everything but the signatures.
import { existsSync } from 'node:fs';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { loadFrozenStudy, type FrozenStudy } from '../study/frozen-study.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { requireFrozenTool } from '../study/drift.ts';
import { checkOperatorKeys, loadOperatorKeys, type OperatorKeyPems, type OperatorKeys } from './sign.ts';

export interface EmitStudy extends FrozenStudy {
  /** The operator's keys, checked against the pinned one; null for an unsigned emit. */
  keys: OperatorKeys | null;
}

export function emitPreconditions(layout: StudyLayout, keyPems: OperatorKeyPems | null, storeFile: string): EmitStudy {
  // The study and trust directory as frozen: the report block and the pinned operator key are theirs.
  const frozenStudy = loadFrozenStudy(loadStudyFiles(layout), 'emit signs only with the frozen trust directory');
  requireFrozenTool(frozenStudy.loaded.frozen());
  const pinned = frozenStudy.loaded.operatorKey();
  const keys = keyPems === null ? null : loadOperatorKeys(keyPems);
  if (keys) checkOperatorKeys(keys, pinned);
  if (!existsSync(storeFile)) {
    throw new PreregError('OUTPUT_STORE_INCOMPLETE', `no store at ${storeFile}; run the pipeline up to score first`, { path: storeFile });
  }
  return { ...frozenStudy, keys };
}
