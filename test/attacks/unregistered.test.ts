// Issue 21, row 4: in a study that binds no evidence to a system, a rival who copies an honest
// system's lines cancels its proven credit. Registration is therefore the default (SPEC §12.3):
// freeze refuses a study that registers no systems, and a study that declares `"binding": "none"`
// anyway has the consequence said in its report and in the audit's verdict.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withBindingNone, withRegisteredSystems } from '../../scripts/rebuild-example.ts';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { PROJECT_ROOT, runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy } from '../support/small-study.ts';

const study = scratchStudies();
const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md']);

describe('a study that binds no evidence to a system', () => {
  it('is refused at freeze unless it declares binding none (STUDY_SYSTEMS_UNREGISTERED, nothing written)', async () => {
    const root = study();
    const file = join(root, 'preregistration/study.json');
    const frozen = readFileSync(join(root, 'preregistration/freeze.json'));
    writeFileSync(file, withRegisteredSystems(readFileSync(file, 'utf8'), []));
    const refused = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    expect([refused.code, refused.json.code]).toEqual([3, 'STUDY_SYSTEMS_UNREGISTERED']);
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(frozen);
    writeFileSync(file, withBindingNone(readFileSync(file, 'utf8')));
    const declared = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    expect(declared.code, declared.stdout).toBe(0);
  });

  it('declared: a copier cancels the original, and the report and the verdict say so', async () => {
    const honest = {
      system: 'sys-honest',
      item: 'mp-001',
      attempt: 1,
      text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
      passages: [{ ref: 'R2122-8', text: passages.get('R2122-8')! }],
    };
    const s = await buildSmallStudy([honest], {
      registered: false,
      copies: [{ system: 'rival', item: 'mp-001', attempt: 1, copyOf: { system: 'sys-honest', item: 'mp-001', attempt: 1 } }],
    });
    try {
      const run = await runCli(['run', '--root', s.root, '--outputs', join(s.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
      expect(run.code, run.stdout).toBe(0);
      const results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as { scores: Array<Record<string, unknown>> };
      const honestScore = results.scores.find((x) => x.system_id === 'sys-honest' && x.metric === 'positives_citing_expected')!;
      expect([honestScore.declared, honestScore.proven]).toEqual([1, 0]);
      expect(readFileSync(join(run.json.dir, 'report.md'), 'utf8')).toContain("cancels the original's proven credit");
      const audited = await runCli(['audit', run.json.dir, '--root', s.root, ...auditorFlags(publishedFreezeDigest(s.root)), '--json']);
      expect([audited.code, audited.json.weakened_modes]).toEqual([0, expect.arrayContaining(['binding: none'])]);
      const text = await runCli(['audit', run.json.dir, '--root', s.root, ...auditorFlags(publishedFreezeDigest(s.root))]);
      expect(text.stdout).toMatch(/verdict: VALID \(weakened: [^)]*binding: none/);
    } finally {
      s.cleanup();
    }
  }, 180_000);
});
