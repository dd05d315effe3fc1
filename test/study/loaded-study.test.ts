// The loaded study: each file read once, and what is parsed is what was hashed. The attack each
// test plays: the operator (who controls the study's files while a stage runs) swaps a file
// between the moment its digest is compared with freeze.json and the moment it is used.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { studyLayout } from '../../pipeline/layout.ts';
import { loadStudyFiles } from '../../pipeline/study/loaded-study.ts';
import { loadFrozenStudy } from '../../pipeline/study/frozen-study.ts';
import { computePublicDigests } from '../../pipeline/study/public-digests.ts';
import { copyExampleStudy } from '../support/cli.ts';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('loadStudyFiles', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  const study = () => {
    const s = copyExampleStudy();
    cleanups.push(s.cleanup);
    return studyLayout(s.root);
  };

  it('decodes the TSA root it digested: a root swapped after the digest is not the one used', () => {
    const layout = study();
    const rootFile = join(layout.trust, 'tsa-roots/TEST-ONLY-tsa-root.cert.pem');
    const original = readFileSync(rootFile, 'utf8');
    const loaded = loadStudyFiles(layout);
    const leaf = loaded.trustTree().files.find((f) => f.path === 'tsa-roots/TEST-ONLY-tsa-root.cert.pem')!;
    expect(leaf.sha256).toBe(sha256(original));
    // The swap: another certificate in its place once the digest matched the freeze.
    writeFileSync(rootFile, readFileSync(join(layout.trust, 'tsa-certs/TEST-ONLY-tsa.cert.pem')));
    expect(loaded.trust().material.inputs.tsaRootPems).toEqual([original]);
    expect(sha256(loaded.trust().material.inputs.tsaRootPems[0]!)).toBe(leaf.sha256);
    // A stage that starts now reads the new file, and its digest says so.
    const next = loadStudyFiles(layout);
    expect(next.trustTree().files.find((f) => f.path === leaf.path)!.sha256).not.toBe(leaf.sha256);
  });

  it('reads the pinned operator key from the same read as the trust digest', () => {
    const layout = study();
    const loaded = loadStudyFiles(layout);
    loaded.trustTree();
    const keyFile = join(layout.trust, 'operator/TEST-ONLY-operator.pub.pem');
    const pinned = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, 'not a key\n');
    expect(loaded.operatorKey().key.export({ format: 'pem', type: 'spki' })).toBe(pinned);
    expect(() => loadStudyFiles(layout).operatorKey()).toThrow(expect.objectContaining({ code: 'OPERATOR_KEY_UNPINNED' }));
  });

  it('parses study.json from the bytes it hashed, and refuses a drifted one before judging it invalid', () => {
    const layout = study();
    const bytes = readFileSync(layout.study);
    const loaded = loadStudyFiles(layout);
    expect(loaded.studySha256()).toBe(sha256(bytes));
    writeFileSync(layout.study, bytes.toString('utf8').replace(/"study_id": "[^"]*"/, '"study_id": "swapped"'));
    expect(loaded.study().study_id).toBe(JSON.parse(bytes.toString('utf8')).study_id);
    // Hashed without being parsed: a digest asked for first does not need the file to be valid.
    writeFileSync(layout.study, '{ not json');
    const broken = loadStudyFiles(layout);
    expect(broken.studySha256()).toBe(sha256('{ not json'));
    expect(() => broken.study()).toThrow(expect.objectContaining({ code: expect.stringMatching(/^JSON_/) }));
    // And so a study.json both edited and broken is refused as drifted from the freeze.
    expect(() => loadFrozenStudy(loadStudyFiles(layout))).toThrow(expect.objectContaining({ code: 'STUDY_DRIFT' }));
  });

  it('refuses a pinned key the policy names outside the trust directory, through a symlink, or as a directory', () => {
    const layout = study();
    const policyFile = join(layout.trust, 'policy.json');
    const policy = JSON.parse(readFileSync(policyFile, 'utf8'));
    const pinning = (name: string) => writeFileSync(policyFile, JSON.stringify({ ...policy, operator_public_key: name }));
    pinning('../study.json');
    expect(() => loadStudyFiles(layout).operatorKey()).toThrow(expect.objectContaining({ code: 'TRUST_POLICY_INVALID' }));
    mkdirSync(join(layout.trust, 'keys.d'));
    writeFileSync(join(layout.trust, 'keys.d/x.pem'), 'x');
    pinning('keys.d');
    expect(() => loadStudyFiles(layout).operatorKey()).toThrow(expect.objectContaining({ code: 'INPUT_NOT_REGULAR_FILE' }));
    rmSync(join(layout.trust, 'keys.d'), { recursive: true });
    // A link to a key outside: the trust directory's read refuses it before any key is read.
    symlinkSync(join(layout.root, 'preregistration/study.json'), join(layout.trust, 'operator/elsewhere.pem'));
    pinning('operator/elsewhere.pem');
    expect(() => loadStudyFiles(layout).operatorKey()).toThrow(expect.objectContaining({ code: 'CORPUS_PATH_UNSAFE' }));
  });

  it('extracts the vocabulary from the corpus documents it hashed', () => {
    const layout = study();
    const loaded = loadStudyFiles(layout);
    const tree = loaded.corpusTree();
    // The swap: a heading added once the corpus root was taken, before the vocabulary is read.
    appendFileSync(join(layout.corpus, 'ccag-travaux.md'), '\n### CCAG Travaux 99999\n\nAdded after the digest.\n');
    const digests = computePublicDigests(loaded);
    expect(digests.corpus).toEqual(tree);
    const text = loaded.documents().find((d) => d.path === 'ccag-travaux.md')!.text;
    expect(text).not.toContain('CCAG Travaux 99999');
    expect(sha256(text)).toBe(tree.files.find((f) => f.path === 'ccag-travaux.md')!.sha256);
    // A new read sees the added heading: the root moves with the vocabulary.
    const after = computePublicDigests(loadStudyFiles(layout));
    expect(after.corpus.root).not.toBe(tree.root);
    expect(after.vocabulary.ids.length).toBe(digests.vocabulary.ids.length + 1);
  });

  it('gives the items file from the corpus read, and FILE_NOT_FOUND when the corpus has none', () => {
    const layout = study();
    const items = join(layout.corpus, 'items.jsonl');
    const loaded = loadStudyFiles(layout);
    expect(loaded.itemsFile().equals(readFileSync(items))).toBe(true);
    // Named as a path, not as the tree's leaf: the same file.
    writeFileSync(layout.study, readFileSync(layout.study, 'utf8').replace('"items": "items.jsonl"', '"items": "./items.jsonl"'));
    expect(loadStudyFiles(layout).itemsFile().equals(readFileSync(items))).toBe(true);
    renameSync(items, `${items}.moved`);
    expect(() => loadStudyFiles(layout).itemsFile()).toThrow(expect.objectContaining({ code: 'FILE_NOT_FOUND' }));
  });

  it('keeps a refusal: a file that could not be read gives the same error when asked again', () => {
    const layout = study();
    renameSync(layout.freeze, `${layout.freeze}.moved`);
    const loaded = loadStudyFiles(layout);
    let first: unknown;
    try {
      loaded.frozen();
    } catch (err) {
      first = err;
    }
    expect(first).toMatchObject({ code: 'FREEZE_MISSING' });
    renameSync(`${layout.freeze}.moved`, layout.freeze);
    expect(() => loaded.frozen()).toThrow(first as Error);
    expect(loadStudyFiles(layout).frozen().study_id).toBeTypeOf('string');
  });
});
