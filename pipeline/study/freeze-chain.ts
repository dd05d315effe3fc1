// The chain of freezes (SPEC §13.3): an amendment (`freeze --replace --reason`) is a new freeze.json
// naming the freeze it replaces and why; the replaced freeze.json and its anchors are kept under
// preregistration/amendments/<n>/ (1 the first freeze), so that every plan the study ever published
// can still be read and its anchors checked.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { freezeDigest, listFiles, loadFreezeRecord, type FreezeRecord } from './freeze-record.ts';

export interface ChainLink {
  /** Its folder under preregistration/amendments/; null for the current freeze.json. */
  n: number | null;
  /** Study-relative, as findings name it. */
  file: string;
  /** Where its anchors are, absolute and study-relative. */
  anchors: string;
  anchorsLabel: string;
  record: FreezeRecord;
  freeze_digest: string;
}

export interface ChainFinding {
  code: 'FREEZE_CHAIN_BROKEN';
  file: string;
  message: string;
}

export interface FreezeChain {
  /** Newest first: the current freeze, the one it amends, and so on back to the first. */
  links: ChainLink[];
  findings: ChainFinding[];
  /** The earliest opens_at of the chain: every freeze of it must be anchored before the window first announced opened. */
  opensAt: string;
}

const amendmentsOf = (layout: Pick<StudyLayout, 'preregistration'>) => join(layout.preregistration, 'amendments');

/** The kept freezes' folders, by number. */
function keptNumbers(layout: Pick<StudyLayout, 'preregistration'>): number[] {
  const dir = amendmentsOf(layout);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => /^[1-9][0-9]*$/.test(d))
    .map(Number)
    .sort((a, b) => a - b);
}

/** The freezes the current one amends, back to the first, as the kept records show them. */
export function readFreezeChain(
  layout: Pick<StudyLayout, 'preregistration' | 'anchors'>,
  current: FreezeRecord,
  currentDigest: string,
): FreezeChain {
  const findings: ChainFinding[] = [];
  const kept = new Map<string, ChainLink>();
  for (const n of keptNumbers(layout)) {
    const file = `preregistration/amendments/${n}/freeze.json`;
    try {
      const record = loadFreezeRecord(join(amendmentsOf(layout), String(n), 'freeze.json'));
      const digest = freezeDigest(record);
      kept.set(digest, {
        n,
        file,
        anchors: join(amendmentsOf(layout), String(n), 'anchors'),
        anchorsLabel: `preregistration/amendments/${n}/anchors`,
        record,
        freeze_digest: digest,
      });
    } catch (err) {
      if (!(err instanceof PreregError)) throw err;
      findings.push({ code: 'FREEZE_CHAIN_BROKEN', file, message: `${file} cannot be read: ${err.code}: ${err.message}` });
    }
  }
  const links: ChainLink[] = [
    {
      n: null,
      file: 'preregistration/freeze.json',
      anchors: layout.anchors,
      anchorsLabel: 'preregistration/anchors',
      record: current,
      freeze_digest: currentDigest,
    },
  ];
  const seen = new Set([currentDigest]);
  for (let link = links[0]!; link.record.amends !== undefined; ) {
    const wanted = link.record.amends.freeze_digest;
    const previous = kept.get(wanted);
    if (!previous || seen.has(wanted)) {
      findings.push({
        code: 'FREEZE_CHAIN_BROKEN',
        file: link.file,
        message: `${link.file} amends the freeze ${wanted}, which no preregistration/amendments/<n>/freeze.json holds${seen.has(wanted) ? ' (it would close a loop)' : ''}`,
      });
      break;
    }
    if (previous.record.study_id !== current.study_id) {
      findings.push({
        code: 'FREEZE_CHAIN_BROKEN',
        file: previous.file,
        message: `${previous.file} freezes the study ${JSON.stringify(previous.record.study_id)}, not ${JSON.stringify(current.study_id)}`,
      });
    }
    seen.add(wanted);
    links.push(previous);
    link = previous;
  }
  for (const k of kept.values()) {
    if (!seen.has(k.freeze_digest))
      findings.push({
        code: 'FREEZE_CHAIN_BROKEN',
        file: k.file,
        message: `${k.file} (freeze ${k.freeze_digest}) is kept, but no freeze of the chain amends it`,
      });
  }
  const opensAt = links.map((l) => l.record.window.opens_at).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  return { links, findings, opensAt };
}

/**
 * Keeps the current freeze.json and its anchors as preregistration/amendments/<n>/ (the next
 * number), assembled beside it and renamed into place; once the new freeze.json is written
 * (`write`), removes the kept anchors from preregistration/anchors/ (they witness the replaced
 * digest), so that a failed write leaves the old freeze and its anchors where they were. Returns n.
 */
export function keepReplacedFreeze(layout: Pick<StudyLayout, 'preregistration' | 'freeze' | 'anchors'>, write: () => void): number {
  const n = (keptNumbers(layout).at(-1) ?? 0) + 1;
  const dir = amendmentsOf(layout);
  const staging = join(dir, `.${n}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'anchors'), { recursive: true });
  copyFileSync(layout.freeze, join(staging, 'freeze.json'));
  const anchorFiles = [...listFiles(layout.anchors, '.tsr'), ...listFiles(layout.anchors, '.json')];
  for (const f of anchorFiles) copyFileSync(join(layout.anchors, f), join(staging, 'anchors', f));
  renameSync(staging, join(dir, String(n)));
  try {
    write();
  } catch (err) {
    rmSync(join(dir, String(n)), { recursive: true, force: true });
    throw err;
  }
  for (const f of anchorFiles) rmSync(join(layout.anchors, f));
  return n;
}
