// A sealed-intake study for the tests: a copy of the example study turned into prereg.study/2,
// with two systems (sys-honest, sys-truncated) registering real Ed25519 agent keys generated here
// (proofs of possession signed with them), re-frozen and re-anchored with the repository's own
// helper (scripts/rebuild-example.ts freezeAndAnchor). The example's submission files are moved
// out of inputs/ into a staging directory: in a sealed study, files come in through intake only.
// The TSA is the local pkijs TSA over HTTP, whose genTime the test sets (`tsa.at(...)`).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { agentKeyRegistration } from '../../pipeline/participant/agent-key.ts';
import { freezeAndAnchor } from '../../scripts/rebuild-example.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli } from './cli.ts';
import { startTsaServer, type TsaServer } from './tsa/http-tsa.ts';

export const OPERATOR_KEY = join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-operator.key.pem');
export const TSA_ROOT_PEM = join(PROJECT_ROOT, 'test/fixtures/pki/TEST-ONLY-tsa-root.cert.pem');
export const DURING_WINDOW = '2026-11-10T12:00:00Z';
export const CLOSES_AT = '2026-11-16T00:00:00Z';
export const AFTER_CLOSE = '2026-11-16T00:10:00Z';

export interface Agent {
  system_id: string;
  key: KeyObject;
  /** The PKCS#8 PEM file of the private key. */
  keyFile: string;
  public_key: string;
}

export interface IntakeStudy {
  root: string;
  /** Where the participants' files wait before they are sent: the example's submission files. */
  staging: string;
  honest: Agent;
  truncated: Agent;
}

export interface TestTsa extends TsaServer {
  /** Sets the genTime of the next tokens. */
  at(genTime: string): void;
  /** `--tsa local=URL`. */
  args: string[];
}

export async function startTestTsa(initial = DURING_WINDOW): Promise<TestTsa> {
  let genTime = initial;
  const server = await startTsaServer({ backend: 'pkijs', genTime: () => genTime });
  return Object.assign(server, { at: (t: string) => void (genTime = t), args: ['--tsa', `local=${server.url}`] });
}

function agent(dir: string, systemId: string, studyId: string): Agent & { possession: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyFile = join(dir, `${systemId}.key.pem`);
  writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return { system_id: systemId, key: privateKey, keyFile, ...agentKeyRegistration(privateKey, studyId, systemId) };
}

async function cli(args: string[]): Promise<void> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`prereg ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
}

/** Builds the study once; `copy()` gives a fresh scratch copy of it per test (remove with cleanup). */
export async function buildIntakeStudyTemplate(): Promise<{ template: IntakeStudy; copy: () => IntakeStudy; cleanup: () => void }> {
  const { root, cleanup: removeRoot } = copyExampleStudy();
  const keys = mkdtempSync(join(tmpdir(), 'prereg-agents-'));
  const studyPath = join(root, 'preregistration/study.json');
  const study = JSON.parse(readFileSync(studyPath, 'utf8'));
  const honest = agent(keys, 'sys-honest', study.study_id);
  const truncated = agent(keys, 'sys-truncated', study.study_id);
  study.format = 'prereg.study/2';
  study.intake = { mode: 'sealed', seal_within_s: 3600 };
  for (const s of study.systems) {
    const a = [honest, truncated].find((x) => x.system_id === s.system_id);
    if (a) s.agent_keys = [{ public_key: a.public_key, possession: a.possession }];
  }
  writeFileSync(studyPath, `${JSON.stringify(study, null, 2)}\n`);
  const staging = join(root, '..', `${root.split('/').pop()}-staging`);
  mkdirSync(staging, { recursive: true });
  for (const f of readdirSync(join(root, 'inputs/submissions'))) renameSync(join(root, 'inputs/submissions', f), join(staging, f));
  await freezeAndAnchor(root, cli);
  const template: IntakeStudy = { root, staging, honest, truncated };
  const copies: string[] = [];
  return {
    template,
    copy: () => {
      const dir = mkdtempSync(join(tmpdir(), 'prereg-intake-'));
      cpSync(root, join(dir, 'study'), { recursive: true });
      cpSync(staging, join(dir, 'staging'), { recursive: true });
      copies.push(dir);
      return { ...template, root: join(dir, 'study'), staging: join(dir, 'staging') };
    },
    cleanup: () => {
      for (const c of copies) rmSync(c, { recursive: true, force: true });
      rmSync(staging, { recursive: true, force: true });
      rmSync(keys, { recursive: true, force: true });
      removeRoot();
    },
  };
}

/** Every file under `dir` with its bytes (to show that a refusal wrote nothing). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out[p.slice(dir.length)] = readFileSync(p).toString('base64');
  }
  return out;
}

/** For a test file: the local test TSA, started before its tests and closed after them. */
export function testTsaFixture(): { readonly tsa: TestTsa } {
  let tsa: TestTsa | undefined;
  beforeAll(async () => {
    tsa = await startTestTsa();
  });
  afterAll(async () => tsa?.close());
  return {
    get tsa() {
      return tsa!;
    },
  };
}

/**
 * For a test file: starts the TSA and builds the study template before its tests (beforeAll),
 * closes and removes them after (afterAll). The getters are valid inside tests and hooks.
 */
export function intakeFixture(): { readonly tsa: TestTsa; readonly built: Awaited<ReturnType<typeof buildIntakeStudyTemplate>> } {
  let tsa: TestTsa | undefined;
  let built: Awaited<ReturnType<typeof buildIntakeStudyTemplate>> | undefined;
  beforeAll(async () => {
    tsa = await startTestTsa();
    built = await buildIntakeStudyTemplate();
  }, 120_000);
  afterAll(async () => {
    await tsa?.close();
    built?.cleanup();
  });
  return {
    get tsa() {
      return tsa!;
    },
    get built() {
      return built!;
    },
  };
}

/** The participant signs `file` (`submission sign`, the request beside it); `extra`: e.g. `--supersedes PREVIOUS.intake.json`, `--tsa NAME=URL`. */
export function signAs(s: IntakeStudy, file: string, agent: Agent, kind = 'submissions', extra: string[] = []) {
  return runCli([
    'submission',
    'sign',
    file,
    '--key',
    agent.keyFile,
    '--system',
    agent.system_id,
    '--kind',
    kind,
    '--root',
    s.root,
    '--json',
    ...extra,
  ]);
}

/** The operator takes `request` in, from the fixture's TSA. */
export function intakeWith(tsa: TestTsa, s: IntakeStudy, request: string, extra: string[] = []) {
  return runCli(['intake', request, '--operator-key', OPERATOR_KEY, ...tsa.args, '--retries', '0', '--root', s.root, '--json', ...extra]);
}

export function sealWith(tsa: TestTsa, s: IntakeStudy) {
  return runCli(['seal', ...tsa.args, '--retries', '0', '--root', s.root, '--json']);
}
