// `prereg init DIR`: scaffolds a new study (docs/getting-started.md). The study's files go in DIR;
// the operator's private keys, the answer key and its secret go in a private directory outside
// DIR, so that nothing secret is ever committed with the study.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { utcMillis } from '../formats/utc-instant.ts';
import { generateOperatorKeys } from '../init/operator-keys.ts';
import { isWithin, realPathOf } from '../io/real-path.ts';
import { PRIVATE_FILES, scaffoldStudy } from '../init/scaffold.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { unregisteredSystemsWarning, type StudyConfig } from '../study/study.ts';
import { parseTsaOverrides } from './anchor.ts';
import type { Command } from '../command.ts';

/** The tool's own example study plan: its section 5 is a new study's starting analysis. */
const EXAMPLE_PLAN = fileURLToPath(new URL('../../preregistration/PREREGISTRATION.md', import.meta.url));
const DAY = 86_400_000;
const loadStudyText = (text: string) => JSON.parse(text) as StudyConfig;

function isEmptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

function instant(value: unknown, flag: string, fallback: number): string {
  if (value === undefined) return new Date(fallback).toISOString().replace('.000Z', 'Z');
  if (typeof value !== 'string' || utcMillis(value) === undefined) throw new PreregError('USAGE', `${flag} expects an instant such as 2027-03-01T00:00:00Z`);
  return value;
}

function studyIdOf(value: unknown, dir: string): string {
  const id = typeof value === 'string' ? value : basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64);
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(id)) throw new PreregError('USAGE', `study id ${JSON.stringify(id)}: lowercase letters, digits, . _ - (pass --study-id)`);
  return id;
}

/** Writes `files` under a temporary sibling of `dir`, then renames it into place: all or nothing. */
function writeTree(dir: string, files: Record<string, string>, mode?: number): void {
  const tmp = join(dirname(dir), `.${basename(dir)}.init-${randomBytes(6).toString('hex')}`);
  try {
    for (const [path, content] of Object.entries(files)) {
      const target = join(tmp, path);
      mkdirSync(dirname(target), { recursive: true, mode: mode === undefined ? undefined : 0o700 });
      writeFileSync(target, content, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    }
    if (mode !== undefined) chmodSync(tmp, 0o700);
    if (existsSync(dir)) rmdirSync(dir);
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

function intakeMode(value: unknown): 'sealed' | 'unsealed' {
  if (value === undefined || value === 'sealed' || value === 'unsealed') return value ?? 'sealed';
  throw new PreregError('USAGE', `--intake expects sealed or unsealed, got ${JSON.stringify(value)}`);
}

function parseSystems(values: unknown): Array<{ system_id: string; buyer_fingerprints: string[] }> {
  if (!Array.isArray(values)) return [];
  return values.map((v: string) => {
    const eq = v.indexOf('=');
    const fingerprints = eq > 0 ? v.slice(eq + 1).split(',').filter((f) => f !== '') : [];
    if (eq <= 0 || fingerprints.length === 0) throw new PreregError('USAGE', `--system expects ID=FINGERPRINT[,FINGERPRINT…], got ${v}`);
    return { system_id: v.slice(0, eq), buyer_fingerprints: fingerprints };
  });
}

/** --seller, repeated: the pinned sellers, or "any" alone (SPEC §12.4). */
function parseSellers(values: unknown): string[] | 'any' | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const sellers = values as string[];
  if (sellers.includes('any')) {
    if (sellers.length > 1) throw new PreregError('USAGE', '--seller any accepts every seller: give it alone');
    return 'any';
  }
  if (sellers.some((s) => s === '')) throw new PreregError('USAGE', '--seller expects a seller identity');
  return [...new Set(sellers)];
}

export const init: Command = {
  name: 'init',
  summary: 'scaffold a new study in DIR (corpus, plan with section 5, study.json, trust policy, operator keys)',
  help: [
    'usage: prereg init DIR [--private-dir DIR] [--study-id ID] [--opens-at T] [--closes-at T]',
    '                   [--tsa NAME=URL]… [--tsa-root FILE.pem]… [--system ID=FP]… [--intake MODE] [--json]',
    '',
    '  --private-dir DIR  where the private files go (default: DIR.private beside DIR, never inside it):',
    '                     operator.key.pem, operator-cms.key.pem, operator-cms.cert.pem (the operator',
    '                     keys emit signs with), answer-key.jsonl (a template) and answer-key.secret',
    '  --study-id ID      default: DIR\'s name',
    '  --opens-at T       submission window (default: 7 days from now, 00:00Z); --closes-at (default +14 days)',
    '  --tsa NAME=URL     the TSAs anchor asks (default: none; add them to study.json anchors.tsas)',
    '  --tsa-root FILE    a TSA root certificate (PEM) to pin in preregistration/trust/tsa-roots/',
    '  --system ID=FP[,FP…]  register a participating system and its buyer fingerprints (study.json',
    '                     systems); without any, doctor warns and freeze refuses (STUDY_SYSTEMS_UNREGISTERED)',
    '  --intake MODE      sealed (default: participants sign, the operator seals; add each system\'s',
    '                     agent_keys before the freeze, docs/intake.md) or unsealed (a weakened mode',
    '                     the audit\'s verdict names)',
    '  --seller ID        pin a retrieval service whose proofs can prove a passage served (trust',
    '                     policy sellers; "any" for the weakened mode); without any, freeze refuses',
    '                     the study (TRUST_SELLERS_MISSING) until the policy lists them',
    '',
    'Writes DIR/corpus/ (one sample document, items.jsonl), DIR/preregistration/ (PREREGISTRATION.md',
    'whose section 5 is the example study\'s analysis, study.json, trust/policy.json pinning the new',
    'operator public key and the TSA roots), DIR/inputs/submissions/. Refuses (exit 4,',
    'INIT_TARGET_EXISTS) a DIR or private directory that exists and is not empty. Then: edit, run',
    '`prereg doctor`, `prereg freeze --answer-key PRIVATE/answer-key.jsonl --secret-file',
    'PRIVATE/answer-key.secret`, `prereg anchor`. See docs/getting-started.md.',
  ].join('\n'),
  options: {
    'private-dir': { type: 'string' },
    'study-id': { type: 'string' },
    'opens-at': { type: 'string' },
    'closes-at': { type: 'string' },
    tsa: { type: 'string', multiple: true },
    'tsa-root': { type: 'string', multiple: true },
    system: { type: 'string', multiple: true },
    intake: { type: 'string' },
    seller: { type: 'string', multiple: true },
  },
  stage: true,
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new PreregError('USAGE', 'init needs exactly one DIR');
    const dir = resolve(ctx.positionals[0]!);
    const privateDir = resolve(typeof ctx.values['private-dir'] === 'string' ? ctx.values['private-dir'] : `${dir}.private`);
    // Judged on real paths: `--private-dir alias/priv`, alias a symlink to the study, is inside it.
    if (isWithin(privateDir, dir)) {
      throw new PreregError('PRIVATE_DIR_INSIDE_STUDY', `--private-dir ${privateDir} is inside the study ${dir} (symlinks resolved: ${realPathOf(privateDir)}): private keys and the answer key must stay outside it; nothing was written`, { path: privateDir, study: dir });
    }
    for (const d of [dir, privateDir]) {
      if (!isEmptyOrAbsent(d)) throw new PreregError('INIT_TARGET_EXISTS', `${d} exists and is not empty; init writes only into a new or empty directory`, { path: d });
    }
    const studyId = studyIdOf(ctx.values['study-id'], dir);
    const opens = instant(ctx.values['opens-at'], '--opens-at', Math.ceil(Date.now() / DAY) * DAY + 7 * DAY);
    const closes = instant(ctx.values['closes-at'], '--closes-at', utcMillis(opens)! + 14 * DAY);
    if (utcMillis(opens)! >= utcMillis(closes)!) throw new PreregError('USAGE', '--opens-at must be before --closes-at');
    const rootFiles = Array.isArray(ctx.values['tsa-root']) ? ctx.values['tsa-root'] : [];
    const tsaRoots = rootFiles.map((f) => {
      if (!existsSync(f)) throw new PreregError('FILE_NOT_FOUND', `--tsa-root ${f} does not exist`, { path: f });
      return { name: basename(f), pem: readFileSync(f, 'utf8') };
    });
    const scaffold = scaffoldStudy({
      studyId,
      window: { opens_at: opens, closes_at: closes },
      tsas: parseTsaOverrides(ctx.values.tsa) ?? [],
      systems: parseSystems(ctx.values.system),
      sellers: parseSellers(ctx.values.seller),
      tsaRoots,
      keys: generateOperatorKeys(studyId),
      secret: randomBytes(32).toString('hex'),
      intake: intakeMode(ctx.values.intake),
      examplePlan: readFileSync(EXAMPLE_PLAN, 'utf8'),
    });
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dirname(privateDir), { recursive: true });
    writeTree(privateDir, scaffold.private, 0o600);
    writeTree(dir, scaffold.study);
    const priv = (f: string) => join(privateDir, f);
    const rel = (p: string) => relative(process.cwd(), p) || '.';
    const warning = unregisteredSystemsWarning(loadStudyText(scaffold.study['preregistration/study.json']!));
    const next = [
      `prereg doctor --root ${rel(dir)}`,
      `prereg freeze --root ${rel(dir)} --answer-key ${rel(priv(PRIVATE_FILES.answerKey))} --secret-file ${rel(priv(PRIVATE_FILES.secret))}`,
      `prereg anchor --root ${rel(dir)}${tsaRoots.length === 0 ? '   (after pinning a TSA root: docs/getting-started.md)' : ''}`,
    ];
    return {
      exitCode: EXIT.ok,
      json: { ok: true, warnings: warning ? [warning] : [], study_id: studyId, dir, private_dir: privateDir, files: Object.keys(scaffold.study).sort(), private_files: Object.keys(scaffold.private).sort(), window: { opens_at: opens, closes_at: closes }, next },
      text: [
        `init: study ${studyId} in ${dir}`,
        `  private files (never commit them) in ${privateDir}: ${Object.keys(scaffold.private).sort().join(', ')}`,
        `  window ${opens} → ${closes}`,
        ...(warning ? [`  warning: ${warning.code}: ${warning.message}`] : []),
        'next:',
        ...next.map((n) => `  ${n}`),
      ].join('\n'),
    };
  },
};
