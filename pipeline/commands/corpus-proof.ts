// `prereg corpus-proof PATH`: proves that one corpus file is part of the frozen corpus root with an
// RFC 6962 audit path, and (with --verify FILE.json) checks such a proof without the corpus.
import { sha256Hex } from '../formats/hash.ts';
import { shown } from '../text/display.ts';
import { corpusDrift, refuseDrift } from '../study/drift.ts';
import { digestTree, leafHash, type TreeLeaf } from '../study/file-tree.ts';
import { loadFreezeRecord } from '../study/freeze-record.ts';
import { inclusionPath, verifyInclusion } from '../formats/merkle.ts';
import { readJsonFile } from '../io/json-files.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';
import { readRegularFile } from '../io/regular-file.ts';

export interface CorpusInclusionProof {
  format: 'prereg.corpus-proof/1';
  leaf: TreeLeaf;
  index: number;
  tree_size: number;
  audit_path: string[];
  corpus_root: string;
}

export function checkCorpusProof(proof: CorpusInclusionProof, root: string) {
  const outcome = verifyInclusion(
    leafHash(proof.leaf),
    proof.index,
    proof.tree_size,
    proof.audit_path.map((h) => Buffer.from(h, 'hex')),
    Buffer.from(root, 'hex'),
  );
  return outcome.ok ? { ok: true as const } : { ok: false as const, failure: outcome.failure };
}

export const corpusProof: Command = {
  name: 'corpus-proof',
  summary: 'prove (or --verify) that one file belongs to the frozen corpus',
  help: [
    'usage: prereg corpus-proof CORPUS_PATH [--root DIR] [--json]',
    '       prereg corpus-proof --verify PROOF.json [--corpus-root HEX] [--file FILE]',
    '',
    'The proof is {leaf: {path, bytes, sha256}, index, tree_size, audit_path, corpus_root}.',
    '--verify checks it against freeze.json\'s corpus root (or --corpus-root), and with --file',
    'also checks that FILE\'s bytes are the leaf\'s.',
  ].join('\n'),
  options: { verify: { type: 'string' }, 'corpus-root': { type: 'string' }, file: { type: 'string' } },
  stage: false,
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    if (typeof ctx.values.verify === 'string') {
      const proof = readJsonFile(ctx.values.verify) as CorpusInclusionProof;
      const root = typeof ctx.values['corpus-root'] === 'string' ? ctx.values['corpus-root'] : loadFreezeRecord(layout.freeze).corpus.root;
      const problems: string[] = [];
      const outcome = checkCorpusProof(proof, root);
      if (!outcome.ok) problems.push(`audit path does not reach ${root}: ${outcome.failure}`);
      if (typeof ctx.values.file === 'string') {
        const data = readRegularFile(ctx.values.file);
        const sha = sha256Hex(data);
        if (sha !== proof.leaf.sha256 || data.length !== proof.leaf.bytes) problems.push(`${ctx.values.file} is not the proven leaf's content`);
      }
      const ok = problems.length === 0;
      return {
        exitCode: ok ? EXIT.ok : EXIT.failures,
        json: { ok, path: proof.leaf?.path, corpus_root: root, problems, codes: ok ? [] : ['CORPUS_PROOF_INVALID'] },
        text: ok ? `${proof.leaf.path} is part of corpus root ${root}` : `CORPUS_PROOF_INVALID: ${problems.join('; ')}`,
      };
    }
    const path = ctx.positionals[0];
    if (path === undefined) throw new PreregError('USAGE', 'corpus-proof needs a corpus-relative path');
    const frozen = loadFreezeRecord(layout.freeze);
    const index = frozen.corpus.files.findIndex((f) => f.path === path);
    if (index < 0) throw new PreregError('CORPUS_FILE_UNKNOWN', `${shown(path)} is not a file of the frozen corpus`);
    const current = digestTree(layout.corpus);
    refuseDrift(corpusDrift(frozen.corpus, current), 'run `prereg check-anchors`');
    const proof: CorpusInclusionProof = {
      format: 'prereg.corpus-proof/1',
      leaf: frozen.corpus.files[index]!,
      index,
      tree_size: frozen.corpus.files.length,
      audit_path: inclusionPath(frozen.corpus.files.map(leafHash), index).map((h) => h.toString('hex')),
      corpus_root: frozen.corpus.root,
    };
    return { exitCode: EXIT.ok, json: proof, text: JSON.stringify(proof, null, 2) };
  },
};
