// The frozen items as ingest and intake read them: the items file valid, and byte-identical to the
// one freeze.json recorded.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../formats/hash.ts';
import { readItems } from './answer-key-file.ts';
import { corpusFileDrift, refuseDrift } from '../study/drift.ts';
import { itemsLeaf } from '../study/study.ts';
import { studyRelative } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';

/** The frozen item ids: items file valid, and byte-identical to the one freeze.json recorded. */
export function loadFrozenItems(loaded: LoadedStudy): { ids: Set<string>; file: string; sha256: string } {
  const { layout } = loaded;
  const frozen = loaded.frozen();
  const study = loaded.study();
  const itemsPath = join(layout.corpus, study.corpus.items);
  const relPath = studyRelative(layout, itemsPath);
  if (!existsSync(itemsPath)) throw new PreregError('FILE_NOT_FOUND', `${itemsPath} does not exist`, { path: itemsPath });
  const data = readRegularFile(itemsPath);
  const sha256 = sha256Hex(data);
  refuseDrift(corpusFileDrift(frozen.corpus, { path: itemsLeaf(study), bytes: data.length, sha256 }), 'run `prereg check-anchors`');
  // Parsed from the bytes just hashed and compared with the freeze.
  const ids = new Set(readItems(layout, study, data).map((i) => i.item_id));
  return { ids, file: relPath, sha256 };
}
