// `prereg corpus-proof PATH`: proves that one corpus file is part of the frozen corpus root with an
// RFC 6962 audit path, and (with --verify FILE.json) checks such a proof without the corpus.
import { sha256Hex } from '../formats/hash.ts';
import { shown } from '../text/display.ts';
import { corpusDrift, refuseDrift } from '../study/drift.ts';
import { digestTree, leafHash, type TreeLeaf } from '../study/file-tree.ts';
import { loadFreezeRecord } from '../study/freeze-record.ts';
import { hashFromHex, inclusionPath, verifyInclusion } from '../formats/merkle.ts';
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

const HEX64 = /^[0-9a-f]{64}$/;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with a value read as a corpus inclusion proof; empty when it is one. */
export function corpusProofProblems(value: unknown): string[] {
  if (!isObject(value)) return ['the proof must be a JSON object'];
  const problems: string[] = [];
  if (value.format !== 'prereg.corpus-proof/1') problems.push('format must be "prereg.corpus-proof/1"');
  const leaf = value.leaf;
  if (
    !isObject(leaf) ||
    typeof leaf.path !== 'string' ||
    !isCount(leaf.bytes) ||
    typeof leaf.sha256 !== 'string' ||
    !HEX64.test(leaf.sha256)
  ) {
    problems.push('leaf must be {path: string, bytes: integer ≥ 0, sha256: 64 lowercase hex digits}');
  }
  if (!isCount(value.index)) problems.push('index must be an integer ≥ 0');
  if (!isCount(value.tree_size)) problems.push('tree_size must be an integer ≥ 0');
  if (!Array.isArray(value.audit_path) || !value.audit_path.every((h) => typeof h === 'string' && HEX64.test(h))) {
    problems.push('audit_path must be an array of 64-hex-digit hashes');
  }
  if (typeof value.corpus_root !== 'string' || !HEX64.test(value.corpus_root)) problems.push('corpus_root must be 64 lowercase hex digits');
  return problems;
}

function readCorpusProof(path: string): CorpusInclusionProof {
  const value = readJsonFile(path);
  const problems = corpusProofProblems(value);
  if (problems.length > 0) throw new PreregError('CORPUS_PROOF_MALFORMED', `${shown(path)}: ${problems.join('; ')}`);
  return value as CorpusInclusionProof;
}

export function checkCorpusProof(proof: CorpusInclusionProof, root: string) {
  const outcome = verifyInclusion(leafHash(proof.leaf), proof.index, proof.tree_size, proof.audit_path.map(hashFromHex), hashFromHex(root));
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
    "--verify checks it against freeze.json's corpus root (or --corpus-root), and with --file",
    "also checks that FILE's bytes are the leaf's.",
  ].join('\n'),
  options: { verify: { type: 'string' }, 'corpus-root': { type: 'string' }, file: { type: 'string' } },
  stage: false,
  jsonSchema: (ctx) => (typeof ctx.values.verify === 'string' ? 'prereg.corpus-proof-verify/1' : 'prereg.corpus-proof-prove/1'),
  operands: { min: 0, max: 1 },
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    if (typeof ctx.values.verify === 'string') {
      const proof = readCorpusProof(ctx.values.verify);
      const given = ctx.values['corpus-root'];
      if (typeof given === 'string' && !HEX64.test(given))
        throw new PreregError('USAGE', `--corpus-root must be the 64 lowercase hex digits of a corpus root, got ${shown(given)}`);
      const root = typeof given === 'string' ? given : loadFreezeRecord(layout.freeze).corpus.root;
      const problems: string[] = [];
      const outcome = checkCorpusProof(proof, root);
      if (!outcome.ok) problems.push(`audit path does not reach ${root}: ${outcome.failure}`);
      if (typeof ctx.values.file === 'string') {
        const data = readRegularFile(ctx.values.file);
        const sha = sha256Hex(data);
        if (sha !== proof.leaf.sha256 || data.length !== proof.leaf.bytes)
          problems.push(`${ctx.values.file} is not the proven leaf's content`);
      }
      const ok = problems.length === 0;
      return {
        exitCode: ok ? EXIT.ok : EXIT.failures,
        json: { ok, path: proof.leaf.path, corpus_root: root, problems, codes: ok ? [] : ['CORPUS_PROOF_INVALID'] },
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
    // The text is the proof file itself; --json wraps it, as every command's document is {ok, …}.
    return { exitCode: EXIT.ok, json: { ok: true, proof }, text: JSON.stringify(proof, null, 2) };
  },
};
