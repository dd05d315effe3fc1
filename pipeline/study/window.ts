// The study window's phase, as doctor and status name it (docs/operating.md, "The window"): before
// opens_at, open until closes_at, closed after it, sealed once inputs/seal.json exists (sealed
// intake only). Judged by this machine's clock, which only an operator's own commands trust: the
// witnessed times (intake entries, the seal) are judged by their TSA tokens elsewhere.
import { existsSync } from 'node:fs';
import { utcMillis } from '../formats/utc-instant.ts';
import { PreregError } from '../reasons.ts';
import type { LoadedStudy } from './loaded-study.ts';
import { intakeOf, type StudyConfig } from './study.ts';

export type WindowPhase = 'before' | 'open' | 'closed' | 'sealed';

export interface WindowState {
  phase: WindowPhase;
  opens_at: string;
  closes_at: string;
  intake: 'sealed' | 'unsealed';
  /** Sealed intake: the latest seal the study accepts (closes_at + intake.seal_within_s); null when unsealed. */
  seal_by: string | null;
  /** This machine's clock when the phase was judged. */
  judged_at: string;
  /** What the operator does in this phase. */
  next: string;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** The window in force: the frozen one once frozen (a drifted study.json changes nothing), else study.json's. */
function windowOf(loaded: LoadedStudy): StudyConfig['window'] {
  if (existsSync(loaded.layout.freeze)) {
    try {
      return loaded.frozen().window;
    } catch (err) {
      if (!(err instanceof PreregError)) throw err;
    }
  }
  return loaded.study().window;
}

/** The window's phase at `nowMs`; null when neither freeze.json nor study.json can say it (doctor names why). */
export function windowState(loaded: LoadedStudy, nowMs: number): WindowState | null {
  let window: StudyConfig['window'];
  let mode: 'sealed' | 'unsealed';
  let sealWithin: number;
  try {
    window = windowOf(loaded);
    ({ mode, seal_within_s: sealWithin } = intakeOf(loaded.study()));
  } catch (err) {
    if (err instanceof PreregError) return null;
    throw err;
  }
  const { opens_at, closes_at } = window;
  const sealBy = mode === 'sealed' ? iso(utcMillis(closes_at)! + sealWithin * 1000) : null;
  const phase: WindowPhase =
    mode === 'sealed' && existsSync(loaded.layout.seal)
      ? 'sealed'
      : nowMs < utcMillis(opens_at)!
        ? 'before'
        : nowMs < utcMillis(closes_at)!
          ? 'open'
          : 'closed';
  return {
    phase,
    opens_at,
    closes_at,
    intake: mode,
    seal_by: sealBy,
    judged_at: iso(Math.floor(nowMs / 1000) * 1000),
    next: nextStep(phase, mode, window, sealBy),
  };
}

function nextStep(phase: WindowPhase, mode: 'sealed' | 'unsealed', window: StudyConfig['window'], sealBy: string | null): string {
  const run = 'reveal the answer key and its secret under inputs/ (`prereg reveal-check`), then `prereg run`';
  switch (phase) {
    case 'before':
      return `freeze and anchor before opens_at ${window.opens_at}: until then a changed plan may be frozen again (\`prereg freeze --replace\`, then anchor again); after it, never`;
    case 'open':
      return mode === 'sealed'
        ? `take each participant's signed file in with \`prereg intake\` until closes_at ${window.closes_at}; run and emit refuse until the intake is sealed (SEAL_MISSING)`
        : `collect submissions and commitments under inputs/ until closes_at ${window.closes_at}; run and emit refuse until then, by this machine's clock (WINDOW_OPEN)`;
    case 'closed':
      return mode === 'sealed'
        ? `\`prereg seal\` between closes_at ${window.closes_at} and ${sealBy} (closes_at + intake.seal_within_s), then ${run}`
        : run;
    case 'sealed':
      return `${run}; the intake is closed (inputs/seal.json)`;
  }
}

/** For a person: "window: open (opens_at …, closes_at …; … intake; this machine's clock …)", then the next step. */
export function windowLines(w: WindowState): string[] {
  const seal = w.seal_by ? `, seal by ${w.seal_by}` : '';
  return [
    `window: ${w.phase} (opens_at ${w.opens_at}, closes_at ${w.closes_at}${seal}; ${w.intake} intake; this machine's clock ${w.judged_at})`,
    `  next in this phase: ${w.next}`,
  ];
}
