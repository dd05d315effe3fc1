// Issue 33, item 3: whoever edits the corpus before the freeze (the operator) adds
// corpus/annexe.md declaring `### Article R2122-8` again with an older text. The first declaration
// in path order won, silently: the genuine article's passages became not_found and the honest
// system lost proven positives. One identifier, one declaration: freeze refuses the corpus
// (VOCABULARY_ID_DUPLICATE) naming both places, writing nothing; doctor and check-anchors report it,
// and a corpus frozen without the rule (another tool) is not scored.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { studyLayout } from '../../pipeline/layout.ts';
import { renderFreezeRecord, type FreezeRecord } from '../../pipeline/study/freeze-record.ts';
import { loadStudyFiles } from '../../pipeline/study/loaded-study.ts';
import { computePublicDigests } from '../../pipeline/study/public-digests.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();
const GENUINE = 'corpus/code-commande-publique/partie-reglementaire.md';
const SHADOW = 'corpus/annexe.md';

/** The 1-based line of `text` in the study's file `file`. */
const lineOf = (root: string, file: string, text: string) => readFileSync(join(root, file), 'utf8').split('\n').indexOf(text) + 1;

/** The shadowing annexe: the genuine article's heading again, over an older threshold. */
function shadow(root: string): void {
  writeFileSync(
    join(root, SHADOW),
    '# Annexe : textes antérieurs\n\nVersion antérieure, pour mémoire.\n\n### Article R2122-8\n\n' +
      "L'acheteur peut passer un marché sans publicité ni mise en concurrence préalables pour répondre à\nun besoin dont la valeur estimée est inférieure à 25 000 euros hors taxes.\n",
  );
}

describe('an identifier declared twice in the corpus', () => {
  it('freeze refuses it (exit 3, VOCABULARY_ID_DUPLICATE) naming both file:line, and writes nothing', async () => {
    const root = study();
    const frozen = readFileSync(join(root, 'preregistration/freeze.json'));
    shadow(root);
    const genuine = `${GENUINE}:${lineOf(root, GENUINE, '### Article R2122-8')}`;
    const again = `${SHADOW}:${lineOf(root, SHADOW, '### Article R2122-8')}`;
    expect(genuine).toMatch(/:\d+$/);
    expect(again).toBe(`${SHADOW}:5`);

    const r = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'VOCABULARY_ID_DUPLICATE']);
    expect(r.json.message).toContain('R2122-8');
    expect(r.json.message).toContain(genuine);
    expect(r.json.message).toContain(again);
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(frozen);

    const text = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root]);
    expect(text.code).toBe(3);
    expect(text.stderr).toContain('VOCABULARY_ID_DUPLICATE');
    expect(text.stderr).toContain(genuine);
  });

  it('doctor reports it, with both places', async () => {
    const root = study();
    shadow(root);
    const r = await runCli(['doctor', '--root', root, '--json']);
    expect(r.code).not.toBe(0);
    const freeze = (r.json.stages as Array<{ stage: string; problems: Array<{ code: string; message: string }> }>).find(
      (s) => s.stage === 'freeze',
    )!;
    const problem = freeze.problems.find((p) => p.code === 'VOCABULARY_ID_DUPLICATE');
    expect(problem?.message).toContain(`${SHADOW}:5`);
    expect(problem?.message).toContain(GENUINE);
  });

  it('check-anchors reports it as a finding', async () => {
    const root = study();
    shadow(root);
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect(r.code).toBe(1);
    const finding = (r.json.findings as Array<{ code: string; file: string; message: string }>).find(
      (f) => f.code === 'VOCABULARY_ID_DUPLICATE',
    );
    // Path order puts the annexe first: the finding sits on the genuine heading and names both.
    expect(finding?.file).toBe(GENUINE);
    expect(finding?.message).toContain(`${SHADOW}:5`);
    expect(finding?.message).toContain(`${GENUINE}:${lineOf(root, GENUINE, '### Article R2122-8')}`);
  });

  it('a freeze made without the rule (an older tool): classify and run refuse to score it (VOCABULARY_ID_DUPLICATE)', async () => {
    const root = study();
    shadow(root);
    // The operator's freeze.json as a tool without the rule wrote it: the corpus with the annexe, anchored or not.
    const loaded = loadStudyFiles(studyLayout(root));
    const record = JSON.parse(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')) as FreezeRecord;
    writeFileSync(
      join(root, 'preregistration/freeze.json'),
      renderFreezeRecord({ ...record, corpus: computePublicDigests(loaded).corpus }),
    );
    const classify = await runCli(['classify', '--root', root, '--json']);
    expect([classify.code, classify.json.code], classify.stdout).toEqual([3, 'VOCABULARY_ID_DUPLICATE']);
    expect(classify.json.message).toContain(`${SHADOW}:5`);
    const run = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    expect([run.code, run.json.code], run.stdout).toEqual([3, 'VOCABULARY_ID_DUPLICATE']);
  });

  it('one heading matched by two patterns declares its identifier once: the example freezes', async () => {
    const root = study();
    const file = join(root, 'preregistration/study.json');
    const s = JSON.parse(readFileSync(file, 'utf8')) as { vocabulary: { heading_patterns: string[] } };
    s.vocabulary.heading_patterns.push('^### Article (?<id>R2122-8)\\s*$');
    writeFileSync(file, JSON.stringify(s, null, 2));
    const r = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
});
