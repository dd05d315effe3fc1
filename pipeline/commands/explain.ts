// `prereg explain CODE…`: meaning and next step of reason codes, from the one catalogue.
import { EXIT, REASONS, isReasonCode } from '../reasons.ts';
import { nearest } from '../text/nearest.ts';
import type { Command } from '../command.ts';
import { shown } from '../text/display.ts';

export const explain: Command = {
  name: 'explain',
  summary: 'explain reason codes (meaning and what to do next)',
  help: 'usage: prereg explain CODE… [--json]\n       prereg explain --all [--json]\n\nCodes are matched case-insensitively. An unknown code is reported as unknown (exit 1), with the\nnearest known code when one is close, never as a favourable result.',
  options: { all: { type: 'boolean' } },
  stage: false,
  async run(ctx) {
    const codes = ctx.values.all === true ? Object.keys(REASONS) : ctx.positionals;
    if (codes.length === 0) {
      return { exitCode: EXIT.usage, json: { ok: false, code: 'USAGE' }, text: 'usage: prereg explain CODE…' };
    }
    // Codes are UPPER_SNAKE; `explain file_not_found` means FILE_NOT_FOUND.
    const entries = codes.map((given) => {
      const code = given.toUpperCase();
      if (isReasonCode(code)) return { code, known: true, meaning: REASONS[code].meaning, next: REASONS[code].next };
      const guess = nearest(code, Object.keys(REASONS));
      return { code: given, known: false, meaning: REASONS.UNKNOWN_REASON_CODE.meaning, next: guess ? `did you mean ${guess}? ${REASONS.UNKNOWN_REASON_CODE.next}` : REASONS.UNKNOWN_REASON_CODE.next, ...(guess ? { nearest: guess } : {}) };
    });
    const anyUnknown = entries.some((e) => !e.known);
    return {
      exitCode: anyUnknown ? EXIT.failures : EXIT.ok,
      json: { ok: !anyUnknown, codes: entries },
      text: entries.map((e) => `${shown(e.code)}${e.known ? '' : ' (unknown)'}\n  ${e.meaning}\n  next: ${e.next}`).join('\n\n'),
    };
  },
};
