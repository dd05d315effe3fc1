// What `npm run example` prints of the report (scripts/example.sh): the Scores section of
// report.md whole, however many rows it has — a cut table would hide systems without saying so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

const SCRIPT = join(PROJECT_ROOT, 'scripts/print-report-section.mjs');

describe('scripts/print-report-section.mjs (npm run example)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-print-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // 120 systems' rows: three times the 40 lines example.sh used to print.
  const rows = Array.from({ length: 120 }, (_, i) => `| sys-${String(i).padStart(3, '0')} | m | 1/2 (50.0%) |`);
  const report = [
    '# T',
    '',
    '## Finding',
    '',
    'lead',
    '',
    '## Scores',
    '',
    'intro',
    '',
    '| system | metric | declared |',
    '| --- | --- | ---: |',
    ...rows,
    '',
    '## Retrieval and writing',
    '',
    'after',
    '',
  ].join('\n');
  const file = join(dir, 'report.md');
  writeFileSync(file, report);

  it('prints the whole section, every row, and nothing of the next', () => {
    const r = spawnSync(process.execPath, [SCRIPT, file, 'Scores'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('## Scores');
    for (const row of rows) expect(lines).toContain(row);
    expect(r.stdout).not.toContain('## Retrieval and writing');
    expect(r.stdout).not.toContain('lead');
  });

  it('refuses a section the report does not have, instead of printing nothing', () => {
    const r = spawnSync(process.execPath, [SCRIPT, file, 'Noise'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no section "## Noise"');
  });

  it('is what example.sh prints the scores with (no line limit after it)', () => {
    const script = readFileSync(join(PROJECT_ROOT, 'scripts/example.sh'), 'utf8');
    const line = script.split('\n').find((l) => l.includes('report.md'));
    expect(line).toMatch(/node scripts\/print-report-section\.mjs "\$latest\/report\.md" Scores$/);
  });
});
