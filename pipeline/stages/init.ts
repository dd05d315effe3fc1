// `prereg init DIR`: scaffolds a new study (docs/operating.md; a TEST-ONLY rehearsal with --rehearsal, docs/getting-started.md). The study's files go in DIR;
// the operator's private keys, the answer key and its secret go in a private directory outside
// DIR, so that nothing secret is ever committed with the study.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { utcMillis } from '../formats/utc-instant.ts';
import { generateOperatorKeys } from '../init/operator-keys.ts';
import { isWithin, realPathOf } from '../io/real-path.ts';
import { PRIVATE_FILES, scaffoldStudy, type Scaffold } from '../init/scaffold.ts';
import { createDevKit, KIT_FILES, type NewKit } from '../dev/kit.ts';
import { parseArkForgeKeyHistory, planArkForgeImport } from '../trust-import/arkforge-keys.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { unregisteredSystemsWarning, type StudyConfig } from '../study/study.ts';
import { parseTsaOverrides } from '../options.ts';
import type { Command } from '../command.ts';
import { CI_TOOLS_DIR, CI_WORKFLOW_FILE, FREEZE_DIGEST_FILE } from '../init/ci-workflow.ts';
import { preregTarballVersion } from '../init/prereg-tarball.ts';
import { readRegularFileCapped } from '../io/regular-file.ts';
import { shown } from '../text/display.ts';
import { TOOL_VERSION } from '../version.ts';

/** The tool's own example study plan: its section 5 is a new study's starting analysis. */
const EXAMPLE_PLAN = fileURLToPath(new URL('../../preregistration/PREREGISTRATION.md', import.meta.url));
/** The example's study.json: its `report` block presents that same section 5. */
const EXAMPLE_STUDY = fileURLToPath(new URL('../../preregistration/study.json', import.meta.url));
const DAY = 86_400_000;
const MINUTE = 60_000;
/** A rehearsal: the window opens a few minutes after init (time to freeze and anchor) and stays open a quarter of an hour. */
const REHEARSAL_OPENS_IN = 10 * MINUTE;
const REHEARSAL_OPEN_FOR = 15 * MINUTE;
/** A rehearsal's systems, sys-a, sys-b, … (two unless --rehearsal-systems N): one letter each, so at most 26. */
const MAX_REHEARSAL_SYSTEMS = 26;
const rehearsalSystem = (i: number) => `sys-${String.fromCharCode(0x61 + i)}`;

/** --rehearsal-systems N: how many systems the rehearsal registers (1–26, default 2); only with --rehearsal. */
function rehearsalSystemsOf(value: unknown, rehearsal: boolean): string[] {
  if (value !== undefined && !rehearsal) throw new PreregError('USAGE', '--rehearsal-systems sizes a rehearsal: give it with --rehearsal');
  if (value === undefined) return [0, 1].map(rehearsalSystem);
  const n = typeof value === 'string' && /^[0-9]{1,2}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_REHEARSAL_SYSTEMS))
    throw new PreregError(
      'USAGE',
      `--rehearsal-systems expects a whole number from 1 to ${MAX_REHEARSAL_SYSTEMS} (sys-a … sys-z), got ${JSON.stringify(value)}`,
    );
  return Array.from({ length: n }, (_, i) => rehearsalSystem(i));
}
/** The kit's place in the private directory. */
export const REHEARSAL_KIT_DIR = 'TEST-ONLY-dev-kit';
/** Where `prereg dev tsa` listens by default, and what a rehearsal study's anchors.tsas names. */
export const DEV_TSA_PORT = 3318;
const loadStudyText = (text: string) => JSON.parse(text) as StudyConfig;

function isEmptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

function instant(value: unknown, flag: string, fallback: number): string {
  if (value === undefined) return new Date(fallback).toISOString().replace('.000Z', 'Z');
  if (typeof value !== 'string' || utcMillis(value) === undefined)
    throw new PreregError('USAGE', `${flag} expects an instant such as 2027-03-01T00:00:00Z`);
  return value;
}

function studyIdOf(value: unknown, dir: string): string {
  const id =
    typeof value === 'string'
      ? value
      : basename(dir)
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, '-')
          .replace(/^[^a-z0-9]+/, '')
          .slice(0, 64);
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(id))
    throw new PreregError('USAGE', `study id ${JSON.stringify(id)}: lowercase letters, digits, . _ - (pass --study-id)`);
  return id;
}

/** An https URL the workflow's PREREG_SOURCE line holds as it is (no quote, space or shell character). */
const HTTPS_SOURCE = /^https:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?\/[A-Za-z0-9._~%/+@=-]*$/;
const TARBALL_NAME = /^[A-Za-z0-9._+-]+\.(?:tgz|tar\.gz)$/;
/** prereg's tarball is about 1.3 MiB: one fifty times larger is not prereg's, and is not read whole. */
const MAX_TARBALL_BYTES = 64 * 1024 * 1024;

interface PreregSource {
  /** What the workflow's PREREG_SOURCE line names: a path inside the study, or an https URL. */
  source: string;
  kind: 'copied' | 'url' | 'to-add';
  /** The tarball init copies into the study (kind copied). */
  tarball: { bytes: Buffer; version: string; from: string } | null;
}

/**
 * --prereg-source: where the study's CI installs prereg from (docs/ci.md). A prereg tarball on disk
 * is copied into the study's tools/; an https URL is named as is; anything else — a bare name such
 * as `prereg` would have npm install whatever a registry serves under it — is refused. Without it,
 * the workflow names tools/prereg-<this version>.tgz, for the operator to add.
 */
function preregSourceOf(value: unknown): PreregSource {
  if (value === undefined) return { source: `${CI_TOOLS_DIR}/prereg-${TOOL_VERSION}.tgz`, kind: 'to-add', tarball: null };
  const given = String(value);
  const refused = (why: string) =>
    new PreregError('PREREG_SOURCE_INVALID', `--prereg-source ${shown(JSON.stringify(given))} ${why}; nothing was written`, {
      path: given,
    });
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(given)) {
    if (!HTTPS_SOURCE.test(given))
      throw refused(
        'is not an https URL of a tarball the workflow can name as it is (https://host/path, no space, quote or shell character)',
      );
    return { source: given, kind: 'url', tarball: null };
  }
  if (!existsSync(given))
    throw refused(
      'is neither a file nor an https URL: a package name (prereg, prereg@0.3.0) would have the CI install whatever a registry serves under it',
    );
  const from = resolve(given);
  if (!TARBALL_NAME.test(basename(from)))
    throw refused('is not named as a package tarball (NAME.tgz or NAME.tar.gz, letters, digits, . _ + -)');
  const bytes = readRegularFileCapped(from, MAX_TARBALL_BYTES);
  if (bytes === null) throw refused(`is larger than ${MAX_TARBALL_BYTES / 1024 / 1024} MiB: not a prereg tarball`);
  const found = preregTarballVersion(bytes);
  if ('problem' in found) throw refused(found.problem);
  return { source: `${CI_TOOLS_DIR}/${basename(from)}`, kind: 'copied', tarball: { bytes, version: found.version, from } };
}

/** Writes `files` under a temporary sibling of `dir`, then renames it into place: all or nothing. */
function writeTree(dir: string, files: Record<string, string | Buffer>, mode?: number): void {
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

/** --attempts: protocol.attempts_per_item, as study.json's schema bounds it (1–1000); default 1. */
function attemptsOf(value: unknown): number {
  if (value === undefined) return 1;
  const n = typeof value === 'string' && /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 1000))
    throw new PreregError('USAGE', `--attempts expects a whole number from 1 to 1000, got ${JSON.stringify(value)}`);
  return n;
}

function parseSystems(values: unknown): Array<{ system_id: string; buyer_fingerprints: string[] }> {
  if (!Array.isArray(values)) return [];
  return values.map((v: string) => {
    const eq = v.indexOf('=');
    const fingerprints =
      eq > 0
        ? v
            .slice(eq + 1)
            .split(',')
            .filter((f) => f !== '')
        : [];
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
    '                   [--rehearsal [--rehearsal-systems N]]',
    '',
    '  --private-dir DIR  where the private files go (default: DIR.private beside DIR, never inside it):',
    '                     operator.key.pem, operator-cms.key.pem, operator-cms.cert.pem (the operator',
    '                     keys emit signs with), answer-key.jsonl (a template) and answer-key.secret',
    "  --study-id ID      default: DIR's name",
    '  --opens-at T       submission window (default: 7 days from now, 00:00Z); --closes-at (default +14 days)',
    '  --tsa NAME=URL     the TSAs anchor asks (default: none; add them to study.json anchors.tsas)',
    '  --tsa-root FILE    a TSA root certificate (PEM) to pin in preregistration/trust/tsa-roots/',
    '  --system ID=FP[,FP…]  register a participating system and its buyer fingerprints (study.json',
    '                     systems); without any, doctor warns and freeze refuses (STUDY_SYSTEMS_UNREGISTERED)',
    "  --intake MODE      sealed (default: participants sign, the operator seals; add each system's",
    '                     agent_keys before the freeze, docs/intake.md) or unsealed (a weakened mode',
    "                     the audit's verdict names)",
    '  --seller ID        pin a retrieval service whose proofs can prove a passage served (trust',
    '                     policy sellers; "any" for the weakened mode); without any, freeze refuses',
    '                     the study (TRUST_SELLERS_MISSING) until the policy lists them',
    '  --attempts N       the attempts each system makes of each item (study.json',
    '                     protocol.attempts_per_item, default 1): every rate counts them, a missing',
    '                     attempt as a failure',
    '  --require-receipts a claim counts as proven only with an anchored AER-1 timeline of the call',
    '                     (trust policy require_receipts; default false: proofs alone). Every',
    '                     participant then sends timelines and commitments (docs/aer1.md)',
    '  --rehearsal        a TEST-ONLY rehearsal (docs/getting-started.md): systems sys-a and sys-b',
    '                     registered with generated buyer and agent keys, the window opening 10',
    '                     minutes from now for 15 minutes (unless --opens-at/--closes-at), a dev TSA',
    '                     and a dev ArkForge issuer generated into PRIVATE/TEST-ONLY-dev-kit/ and',
    '                     pinned, with their seller; `prereg dev tsa|issue --kit` use the kit',
    '  --rehearsal-systems N  with --rehearsal: N systems sys-a, sys-b, … (1 to 26, default 2);',
    '                     `prereg dev add-system ID --kit KIT` adds one more before the freeze',
    "  --prereg-source FILE.tgz|URL  where the study's CI (.github/workflows/prereg.yml) installs",
    '                     prereg from: a prereg tarball (copied into DIR/tools/) or an https URL of',
    '                     one; never a package name (default: tools/prereg-<version>.tgz, to add)',
    '',
    'Writes DIR/corpus/ (one sample document, items.jsonl), DIR/preregistration/ (PREREGISTRATION.md',
    "whose section 5 is the example study's analysis, study.json, trust/policy.json pinning the new",
    'operator public key and the TSA roots), DIR/inputs/submissions/, DIR/.github/workflows/prereg.yml',
    '(check-anchors on every push once frozen, against preregistration/FREEZE-DIGEST: docs/ci.md). Refuses (exit 4,',
    'INIT_TARGET_EXISTS) a DIR or private directory that exists and is not empty. Then: edit, run',
    '`prereg doctor`, `prereg freeze --answer-key PRIVATE/answer-key.jsonl --secret-file',
    'PRIVATE/answer-key.secret`, `prereg anchor`. See docs/operating.md (a real study) or docs/getting-started.md (a rehearsal).',
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
    'require-receipts': { type: 'boolean' },
    attempts: { type: 'string' },
    rehearsal: { type: 'boolean' },
    'rehearsal-systems': { type: 'string' },
    'prereg-source': { type: 'string' },
  },
  stage: true,
  jsonSchema: () => 'prereg.init/2',
  operands: { min: 1, max: 1 },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new PreregError('USAGE', 'init needs exactly one DIR');
    const dir = resolve(ctx.positionals[0]!);
    const privateDir = resolve(typeof ctx.values['private-dir'] === 'string' ? ctx.values['private-dir'] : `${dir}.private`);
    // Judged on real paths: `--private-dir alias/priv`, alias a symlink to the study, is inside it.
    if (isWithin(privateDir, dir)) {
      throw new PreregError(
        'PRIVATE_DIR_INSIDE_STUDY',
        `--private-dir ${privateDir} is inside the study ${dir} (symlinks resolved: ${realPathOf(privateDir)}): private keys and the answer key must stay outside it; nothing was written`,
        { path: privateDir, study: dir },
      );
    }
    for (const d of [dir, privateDir]) {
      if (!isEmptyOrAbsent(d))
        throw new PreregError('INIT_TARGET_EXISTS', `${d} exists and is not empty; init writes only into a new or empty directory`, {
          path: d,
        });
    }
    const studyId = studyIdOf(ctx.values['study-id'], dir);
    const rehearsal = ctx.values.rehearsal === true;
    const rehearsalSystems = rehearsalSystemsOf(ctx.values['rehearsal-systems'], rehearsal);
    const ci = preregSourceOf(ctx.values['prereg-source']);
    const opens = instant(
      ctx.values['opens-at'],
      '--opens-at',
      rehearsal ? Math.ceil((Date.now() + REHEARSAL_OPENS_IN) / MINUTE) * MINUTE : Math.ceil(Date.now() / DAY) * DAY + 7 * DAY,
    );
    const closes = instant(ctx.values['closes-at'], '--closes-at', utcMillis(opens)! + (rehearsal ? REHEARSAL_OPEN_FOR : 14 * DAY));
    if (utcMillis(opens)! >= utcMillis(closes)!) throw new PreregError('USAGE', '--opens-at must be before --closes-at');
    const rootFiles = Array.isArray(ctx.values['tsa-root']) ? ctx.values['tsa-root'] : [];
    const tsaRoots = rootFiles.map((f) => {
      if (!existsSync(f)) throw new PreregError('FILE_NOT_FOUND', `--tsa-root ${f} does not exist`, { path: f });
      return { name: basename(f), pem: readFileSync(f, 'utf8') };
    });
    if (rehearsal && ctx.values.system !== undefined)
      throw new PreregError(
        'USAGE',
        `--rehearsal registers its own systems (${rehearsalSystems.join(', ')}; --rehearsal-systems N for another number): leave out --system`,
      );
    // The rehearsal's TEST-ONLY kit, generated in a scratch directory and moved into the private directory with it.
    let kit: NewKit | null = null;
    const kitScratch = join(dirname(privateDir), `.${basename(privateDir)}.kit-${randomBytes(6).toString('hex')}`);
    if (rehearsal)
      kit = createDevKit(kitScratch, {
        studyId,
        systems: rehearsalSystems,
        issuerValidFrom: new Date(utcMillis(opens)! - DAY).toISOString().replace('.000Z', 'Z'),
      });
    let scaffold: Scaffold;
    try {
      scaffold = scaffoldStudy({
        studyId,
        ...(rehearsal ? { title: `TEST-ONLY rehearsal ${studyId}: dev TSA, dev issuer and dev keys (docs/getting-started.md)` } : {}),
        window: { opens_at: opens, closes_at: closes },
        tsas: parseTsaOverrides(ctx.values.tsa) ?? (rehearsal ? [{ name: 'dev', url: `http://127.0.0.1:${DEV_TSA_PORT}/` }] : []),
        systems: kit
          ? kit.systems.map((s) => ({ system_id: s.system_id, buyer_fingerprints: [s.buyer_fingerprint], agent_keys: [s.agent_key] }))
          : parseSystems(ctx.values.system),
        sellers: parseSellers(ctx.values.seller) ?? (kit ? [kit.kit.seller] : undefined),
        tsaRoots: kit ? [...tsaRoots, { name: KIT_FILES.tsaRoot, pem: kit.kit.tsaRootPem }] : tsaRoots,
        keys: generateOperatorKeys(studyId),
        secret: randomBytes(32).toString('hex'),
        intake: intakeMode(ctx.values.intake),
        examplePlan: readFileSync(EXAMPLE_PLAN, 'utf8'),
        exampleReport: loadStudyText(readFileSync(EXAMPLE_STUDY, 'utf8')).report!,
        requireReceipts: ctx.values['require-receipts'] === true,
        attemptsPerItem: attemptsOf(ctx.values.attempts),
        preregSource: ci.source,
      });
      if (kit) {
        // The dev issuer pinned as `trust import-arkforge` pins a real one, from its published key history.
        const policyFile = 'preregistration/trust/policy.json';
        const historyFile = kit.kit.path(KIT_FILES.issuerKeys);
        const plan = planArkForgeImport(
          JSON.parse(scaffold.study[policyFile]!) as TrustPolicy,
          parseArkForgeKeyHistory(readFileSync(historyFile, 'utf8'), historyFile),
          () => undefined,
        );
        scaffold.study[policyFile] = `${JSON.stringify(plan.policy, null, 2)}\n`;
      }
      mkdirSync(dirname(dir), { recursive: true });
      mkdirSync(dirname(privateDir), { recursive: true });
      writeTree(privateDir, scaffold.private, 0o600);
      if (kit) renameSync(kitScratch, join(privateDir, REHEARSAL_KIT_DIR));
      writeTree(dir, { ...scaffold.study, ...(ci.tarball ? { [ci.source]: ci.tarball.bytes } : {}) });
    } finally {
      rmSync(kitScratch, { recursive: true, force: true });
    }
    const priv = (f: string) => join(privateDir, f);
    const rel = (p: string) => relative(process.cwd(), p) || '.';
    const warning = unregisteredSystemsWarning(loadStudyText(scaffold.study['preregistration/study.json']!));
    const kitDir = join(privateDir, REHEARSAL_KIT_DIR);
    const requireReceipts = ctx.values['require-receipts'] === true;
    const next = [
      `prereg doctor --root ${rel(dir)}`,
      ...(ci.kind === 'to-add'
        ? [
            `mkdir -p ${rel(join(dir, CI_TOOLS_DIR))} && cp PATH/TO/prereg-${TOOL_VERSION}.tgz ${rel(join(dir, CI_TOOLS_DIR))}/   (the tarball you installed prereg from: the study's CI installs it, docs/ci.md)`,
          ]
        : []),
      ...(kit ? [`prereg dev tsa --kit ${rel(kitDir)} --port ${DEV_TSA_PORT}   (in another terminal; leave it running)`] : []),
      `prereg freeze --root ${rel(dir)} --answer-key ${rel(priv(PRIVATE_FILES.answerKey))} --secret-file ${rel(priv(PRIVATE_FILES.secret))}`,
      `prereg anchor --root ${rel(dir)}${tsaRoots.length === 0 && !kit ? '   (after pinning a TSA root: docs/operating.md)' : kit ? `   (before ${opens})` : ''}`,
      `echo FREEZE_DIGEST > ${rel(join(dir, FREEZE_DIGEST_FILE))}   (the freeze_digest freeze printed, once anchored; commit it: the CI checks every push against it, docs/ci.md)`,
    ];
    const ciJson = {
      workflow: CI_WORKFLOW_FILE,
      prereg_source: ci.source,
      prereg_source_kind: ci.kind,
      prereg_version: ci.tarball?.version ?? null,
      freeze_digest_file: FREEZE_DIGEST_FILE,
    };
    const ciSource =
      ci.kind === 'copied'
        ? `${ci.source} (copied from ${ci.tarball!.from}: prereg ${ci.tarball!.version})`
        : ci.kind === 'url'
          ? ci.source
          : `${ci.source}, which is not there yet: add the prereg tarball you installed prereg from, or change the workflow's PREREG_SOURCE line`;
    const rehearsalJson = kit
      ? {
          test_only: true,
          kit: kitDir,
          tsa_root: join(kitDir, KIT_FILES.tsaRoot),
          issuer_keys: join(kitDir, KIT_FILES.issuerKeys),
          seller: kit.kit.seller,
          systems: kit.systems.map((s) => ({ system_id: s.system_id, agent_key_file: join(kitDir, KIT_FILES.agentKey(s.system_id)) })),
        }
      : null;
    return {
      exitCode: EXIT.ok,
      json: {
        ok: true,
        warnings: warning ? [warning] : [],
        study_id: studyId,
        dir,
        private_dir: privateDir,
        files: [...Object.keys(scaffold.study), ...(ci.tarball ? [ci.source] : [])].sort(),
        private_files: Object.keys(scaffold.private).sort(),
        window: { opens_at: opens, closes_at: closes },
        require_receipts: requireReceipts,
        rehearsal: rehearsalJson,
        ci: ciJson,
        next,
      },
      text: [
        `init: ${kit ? 'TEST-ONLY rehearsal ' : ''}study ${studyId} in ${dir}`,
        `  private files (never commit them) in ${privateDir}: ${Object.keys(scaffold.private).sort().join(', ')}`,
        `  window ${opens} → ${closes}${kit ? ' (anchor before it opens; submissions inside it; seal within an hour after it closes)' : ''}`,
        `  require_receipts: ${requireReceipts}${requireReceipts ? ' (every proven claim needs an anchored AER-1 timeline)' : ' (proofs alone; --require-receipts asks for AER-1 timelines too)'}`,
        ...(rehearsalJson
          ? [
              `  TEST-ONLY kit ${kitDir}: dev TSA root, dev issuer key (seller ${kit!.kit.seller}), buyer and agent keys of ${rehearsalSystems.join(', ')} (\`prereg dev add-system ID --kit KIT\` adds one before the freeze)`,
              `  the audit is VALID only with --tsa-root ${rel(rehearsalJson.tsa_root)} --issuer-keys ${rel(rehearsalJson.issuer_keys)}`,
            ]
          : []),
        `  CI: ${CI_WORKFLOW_FILE} runs check-anchors on every push and pull request, installing prereg from ${ciSource}; once frozen and anchored, publish the freeze_digest in ${FREEZE_DIGEST_FILE} (docs/ci.md)`,
        ...(warning ? [`  warning: ${warning.code}: ${warning.message}`] : []),
        'next:',
        ...next.map((n) => `  ${n}`),
      ].join('\n'),
    };
  },
};
