// An amendment of the example study, as the operator makes one: section 1 of the plan edited,
// `freeze --replace --reason`, and the new freeze_digest anchored by a TSA dating it `genTime`
// (the example's TEST-ONLY TSA key, a date of the operator's choosing).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { studyLayout } from '../../pipeline/layout.ts';
import { runCli } from './cli.ts';
import { startTsaServer } from './tsa/http-tsa.ts';

export const AMENDMENT_REASON = 'section 1 names the metric it asks about';

export function editPlan(root: string): void {
  const path = join(root, 'preregistration/PREREGISTRATION.md');
  writeFileSync(
    path,
    readFileSync(path, 'utf8').replace(
      'verified evidence rather than declared by the submission?\n',
      'verified evidence rather than declared by the submission? (metric: positives citing the expected article)\n',
    ),
  );
}

/** The amendment: section 1 edited, `freeze --replace --reason`, anchored by a TSA dating it `genTime`. */
export async function amend(root: string, genTime: string): Promise<{ before: string; after: string }> {
  const before = (await runCli(['check-anchors', '--root', root, '--json'])).json.freeze_digest as string;
  editPlan(root);
  const frozen = await runCli([
    'freeze',
    '--replace',
    '--reason',
    AMENDMENT_REASON,
    '--root',
    root,
    '--secret-file',
    studyLayout(root).answerKeySecret,
    '--json',
  ]);
  expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);
  const tsa = await startTsaServer({ backend: 'pkijs', genTime });
  try {
    const anchored = await runCli(['anchor', '--root', root, '--tsa', `local-test-tsa=${tsa.url}`, '--json']);
    expect(anchored.code, anchored.stdout + anchored.stderr).toBe(0);
  } finally {
    await tsa.close();
  }
  return { before, after: frozen.json.freeze_digest as string };
}
