// vitest global setup: the example study as most tests need it — a working copy whose inputs a
// test may change. The committed example's intake is sealed (docs/intake.md), so that a changed
// submission file is INTAKE_DRIFT, as it must be; tests about everything else work on this copy,
// made once per run: the same corpus, plan, trust, answer key and submissions, study.json
// declaring `intake.mode: "unsealed"`, without the intake log, the seal and its anchors, frozen
// again and anchored with the local TSA (scripts/rebuild-example.ts freezeAndAnchor). copyExampleStudy
// copies it (PREREG_TEST_EXAMPLE_COPY); copySealedExampleStudy copies the committed example.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../pipeline/cli.ts';
import { freezeAndAnchor, unsealWorkingCopy } from '../../scripts/rebuild-example.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-example-working-copy-'));
  for (const sub of ['corpus', 'preregistration', 'inputs']) cpSync(join(PROJECT_ROOT, sub), join(dir, sub), { recursive: true });
  unsealWorkingCopy(dir);
  const quiet = {
    stdout: () => {},
    stderr: (t: string) => void process.stderr.write(t),
    env: { ...process.env, CI: 'true' },
    isTTY: false,
  };
  await freezeAndAnchor(dir, async (args) => {
    const code = await main(args, quiet);
    if (code !== 0) throw new Error(`example-working-copy: prereg ${args.join(' ')} exited ${code}`);
  });
  process.env.PREREG_TEST_EXAMPLE_COPY = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
