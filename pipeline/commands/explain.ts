// `prereg explain CODE…`: meaning, next step and exit code of reason codes, from the one catalogue.
import { EXIT, PreregError, REASONS, exitCodeOf, isReasonCode } from '../reasons.ts';
import { suggestions } from '../text/nearest.ts';
import type { Command } from '../command.ts';
import { shown } from '../text/display.ts';

/** What may be asked about: a code's shape, bounded, so a pasted paragraph is a usage error, not an echoed "code". */
const CODE_SHAPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export const explain: Command = {
  name: 'explain',
  summary: 'explain reason codes (meaning and what to do next)',
  help: [
    'usage: prereg explain CODE… [--json]',
    '       prereg explain --all [--json]',
    '',
    'Codes are matched case-insensitively, listed once each, sorted. Each comes with its meaning, what',
    'to do next and the exit code of a command it stops. An unknown code is reported as unknown',
    '(exit 1), with the nearest known codes, never as a favourable result. A CODE is letters, digits',
    'and underscores, at most 64 characters.',
  ].join('\n'),
  options: { all: { type: 'boolean' } },
  stage: false,
  operands: { min: 0, max: Infinity },
  jsonSchema: () => 'prereg.explain/1',
  async run(ctx) {
    if (ctx.values.all !== true && ctx.positionals.length === 0)
      throw new PreregError('USAGE', 'usage: prereg explain CODE… | prereg explain --all');
    const malformed = ctx.positionals.find((given) => !CODE_SHAPE.test(given));
    if (malformed !== undefined) {
      const head = malformed.length > 40 ? `${malformed.slice(0, 40)}…` : malformed;
      throw new PreregError('USAGE', `explain: "${shown(head)}" is not a reason code (letters, digits and _, at most 64 characters)`);
    }
    const asked = ctx.values.all === true ? Object.keys(REASONS) : ctx.positionals.map((given) => given.toUpperCase());
    const codes = [...new Set(asked)].sort();
    const entries = codes.map((code) => {
      if (isReasonCode(code))
        return { code, known: true, exit: exitCodeOf(code), meaning: REASONS[code].meaning, next: REASONS[code].next };
      const near = suggestions(code, Object.keys(REASONS));
      const next =
        near.length > 0 ? `did you mean ${near.join(' or ')}? ${REASONS.UNKNOWN_REASON_CODE.next}` : REASONS.UNKNOWN_REASON_CODE.next;
      return { code, known: false, exit: null, meaning: REASONS.UNKNOWN_REASON_CODE.meaning, next, suggestions: near };
    });
    const anyUnknown = entries.some((e) => !e.known);
    return {
      exitCode: anyUnknown ? EXIT.failures : EXIT.ok,
      json: { ok: !anyUnknown, codes: entries },
      text: entries
        .map((e) => `${shown(e.code)}${e.known ? ` (exit ${e.exit})` : ' (unknown)'}\n  ${e.meaning}\n  next: ${e.next}`)
        .join('\n\n'),
    };
  },
};
