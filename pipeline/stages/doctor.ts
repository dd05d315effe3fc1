// `prereg doctor`: a readiness report of the study, running no stage and writing nothing.
import { diagnose } from '../doctor/readiness.ts';
import { studyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import { KEY_OPTIONS } from '../options.ts';
import { windowLines } from '../study/window.ts';
import type { Command } from '../command.ts';

export const doctor: Command = {
  name: 'doctor',
  summary: "say, without running anything, whether each stage's inputs are present, valid and consistent with the freeze",
  help: [
    'usage: prereg doctor [--operator-key FILE] [--cms-key FILE] [--cms-cert FILE] [--secret-file FILE] [--root DIR] [--json]',
    '',
    'For freeze, anchor, check-anchors and run: ready, done (freeze, once frozen), blocked (something',
    'missing, invalid or changed since the freeze) or conflict (an unsafe path, an output in the way: a code that exits 4), each',
    'problem with its reason code, and what to do next. Runs the checks freeze and run make first',
    '(section 5 is dry-run in memory), writes nothing. The key options are those of run.',
    "First line: the window's phase by this machine's clock (before, open, closed, sealed), its",
    'times and the next step of that phase (docs/operating.md, "The window").',
    'Exit 0 ready, 3 blocked, 4 conflict.',
  ].join('\n'),
  options: { ...KEY_OPTIONS, 'secret-file': { type: 'string' } },
  stage: true,
  jsonSchema: () => 'prereg.doctor/2',
  async run(ctx) {
    const report = await diagnose(studyLayout(ctx.root), ctx.values, ctx.env);
    const lines = report.window ? windowLines(report.window) : [];
    for (const s of report.stages) {
      lines.push(`${s.status.padEnd(8)} ${s.stage}`);
      for (const p of s.problems) lines.push(`           ${p.code}: ${p.message.split('\n')[0]}`);
    }
    for (const w of report.warnings) lines.push(`warning: ${w}`);
    lines.push(report.next ? `next: ${report.next}` : 'ready: every stage can run');
    return {
      exitCode: report.status === 'ready' ? EXIT.ok : report.status === 'conflict' ? EXIT.conflict : EXIT.blocked,
      json: report,
      text: lines.join('\n'),
    };
  },
};
