// `prereg explain CODE…`: meaning and next step of reason codes, from the one catalogue.
import { EXIT, REASONS, isReasonCode } from '../reasons.ts';
import type { Command } from '../command.ts';

export const explain: Command = {
  name: 'explain',
  summary: 'explain reason codes (meaning and what to do next)',
  help: 'usage: prereg explain CODE… [--json]\n       prereg explain --all [--json]\n\nAn unknown code is reported as unknown (exit 1), never as a favourable result.',
  options: { all: { type: 'boolean' } },
  stage: false,
  async run(ctx) {
    const codes = ctx.values.all === true ? Object.keys(REASONS) : ctx.positionals;
    if (codes.length === 0) {
      return { exitCode: EXIT.usage, json: { ok: false, code: 'USAGE' }, text: 'usage: prereg explain CODE…' };
    }
    const entries = codes.map((code) =>
      isReasonCode(code)
        ? { code, known: true, meaning: REASONS[code].meaning, next: REASONS[code].next }
        : { code, known: false, meaning: REASONS.UNKNOWN_REASON_CODE.meaning, next: REASONS.UNKNOWN_REASON_CODE.next },
    );
    const anyUnknown = entries.some((e) => !e.known);
    return {
      exitCode: anyUnknown ? EXIT.failures : EXIT.ok,
      json: { ok: !anyUnknown, codes: entries },
      text: entries.map((e) => `${e.code}${e.known ? '' : ' (unknown)'}\n  ${e.meaning}\n  next: ${e.next}`).join('\n\n'),
    };
  },
};
