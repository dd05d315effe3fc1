// The operator scores the study, then edits study.json before emitting: another title, another
// primary metric for the report's headline. The scores were computed under the frozen study.json;
// the outputs would present them under one nobody froze. emit refuses (STUDY_DRIFT, exit 3) and
// writes nothing; with the frozen study.json back, the same emit writes the outputs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

let root: string;
let cleanup: () => void;
beforeAll(() => ({ root, cleanup } = copyExampleStudy()));
afterAll(() => cleanup());

describe('the operator edits study.json between score and emit', () => {
  it('emit refuses the drifted study.json and writes nothing; the frozen one emits', async () => {
    const scored = await runCli(['score', '--root', root, '--json']);
    expect(scored.code, scored.stdout + scored.stderr).toBe(0);
    const path = join(root, 'preregistration/study.json');
    const frozen = readFileSync(path, 'utf8');
    const study = JSON.parse(frozen) as { title: string; report?: { primary_metric?: string } };
    writeFileSync(
      path,
      `${JSON.stringify({ ...study, title: `${study.title} (revised)`, report: { ...study.report, primary_metric: 'refusal_rate_negatives' } }, null, 2)}\n`,
    );
    const outputs = join(root, 'outputs');
    const refused = await runCli(['emit', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect([refused.code, refused.json.code]).toEqual([3, 'STUDY_DRIFT']);
    expect(existsSync(outputs)).toBe(false);

    writeFileSync(path, frozen);
    const emitted = await runCli(['emit', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(emitted.code, emitted.stdout + emitted.stderr).toBe(0);
    expect(readFileSync(join(emitted.json.dir, 'report.md'), 'utf8')).toContain(study.title);
  });
});
