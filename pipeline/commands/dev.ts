// `prereg dev keys | tsa | issue | add-system`: the TEST-ONLY tools of a rehearsal (docs/getting-started.md),
// which stand in for what a real study gets from others — a participant's agent key, a TSA, the
// ArkForge issuer. Everything they make is labelled TEST-ONLY and trusted only where a study pins
// it (init --rehearsal) and an auditor names it (--tsa-root, --issuer-keys).
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { devIssue } from '../dev/issue.ts';
import { devTsaSigner, ensureDevTsa, KIT_FILES, loadDevKit, prepareDevSystem } from '../dev/kit.ts';
import { prepareFileAtomic } from '../io/atomic.ts';
import { opensslBackend, pkijsBackend, serveTsa, type TsaBackend } from '../dev/tsa/http-tsa.ts';
import { readItems } from '../freeze/answer-key-file.ts';
import { studyLayout } from '../layout.ts';
import { agentKeyRegistration } from '../participant/agent-key.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { corpusSections } from '../study/corpus-sections.ts';
import { corpusDrift, refuseDrift } from '../study/drift.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { loadStudy, studyFromBytes } from '../study/study.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { requiredOption, type Command, type StageContext, type StageResult } from '../command.ts';

const SUMMARY =
  'TEST-ONLY rehearsal tools: `dev keys` (an agent key), `dev tsa` (a local RFC 3161 TSA), `dev issue` (ArkForge-shaped proofs), `dev add-system` (one more rehearsal system)';
const nowSeconds = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function kitDir(ctx: StageContext): string {
  if (typeof ctx.values.kit !== 'string')
    throw new PreregError(
      'USAGE',
      `dev ${ctx.positionals[0]}: --kit DIR is required (the rehearsal kit \`prereg init --rehearsal\` wrote: PRIVATE_DIR/TEST-ONLY-dev-kit)`,
    );
  return resolve(ctx.values.kit);
}

function instantFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || utcMillis(value) === undefined)
    throw new PreregError('USAGE', `${flag} expects an instant such as 2027-03-01T10:00:00Z`);
  return value;
}

async function keys(ctx: StageContext): Promise<StageResult> {
  const systemId = ctx.values.system;
  if (typeof systemId !== 'string' || systemId === '') throw new PreregError('USAGE', 'dev keys: --system ID is required');
  if (typeof ctx.values.out !== 'string')
    throw new PreregError('USAGE', 'dev keys: --out DIR is required (where the TEST-ONLY private key goes: outside the study)');
  const layout = studyLayout(ctx.root);
  const studyId =
    typeof ctx.values['study-id'] === 'string'
      ? ctx.values['study-id']
      : existsSync(layout.study)
        ? loadStudy(layout.study).study_id
        : undefined;
  if (studyId === undefined)
    throw new PreregError('USAGE', 'dev keys: give --study-id ID, or --root STUDY (the proof of possession names the study)');
  const out = resolve(ctx.values.out);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const file = join(out, KIT_FILES.agentKey(systemId));
  if (existsSync(file)) throw new PreregError('INIT_TARGET_EXISTS', `${file} exists; dev keys never overwrites a key`, { path: file });
  const key = generateKeyPairSync('ed25519').privateKey;
  writeFileSync(file, key.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  chmodSync(file, 0o600);
  const registration = agentKeyRegistration(key, studyId, systemId);
  return {
    exitCode: EXIT.ok,
    json: { ok: true, test_only: true, study_id: studyId, system_id: systemId, key_file: file, agent_key: registration },
    text: [
      `TEST-ONLY agent key for ${JSON.stringify(systemId)} of study ${studyId}: ${file}`,
      'its agent_keys entry (add it to the system in preregistration/study.json before the freeze):',
      `  ${JSON.stringify(registration)}`,
    ].join('\n'),
  };
}

async function tsa(ctx: StageContext): Promise<StageResult> {
  const dir = kitDir(ctx);
  ensureDevTsa(dir);
  const genTime = instantFlag(ctx.values['gen-time'], '--gen-time');
  const backendName = ctx.values.backend ?? 'pkijs';
  const port = ctx.values.port === undefined ? 0 : Number(ctx.values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new PreregError('USAGE', '--port expects a TCP port (0: any free port)');
  let backend: TsaBackend;
  if (backendName === 'openssl') {
    if (genTime !== undefined)
      throw new PreregError('USAGE', "--gen-time needs the pkijs backend: OpenSSL's TSA dates tokens by its own clock");
    backend = await opensslBackend({ certPath: join(dir, KIT_FILES.tsaCert), keyPath: join(dir, KIT_FILES.tsaKey) });
  } else if (backendName === 'pkijs') {
    backend = pkijsBackend(await devTsaSigner(dir), genTime);
  } else {
    throw new PreregError('USAGE', '--backend is pkijs or openssl');
  }
  const server = await serveTsa(backend, { port });
  const root = join(dir, KIT_FILES.tsaRoot);
  const line = { ok: true, test_only: true, url: server.url, tsa_root: root, gen_time: genTime ?? 'now', backend: backendName };
  const print = ctx.printLine ?? (() => {});
  print(
    line,
    `dev tsa: TEST-ONLY RFC 3161 TSA at ${server.url} (genTime ${genTime ?? 'now'}, ${backendName}); root ${root}\n  anchor, intake and seal with --tsa dev=${server.url}; Ctrl-C stops it`,
  );
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return { exitCode: EXIT.ok, json: line, text: '', printed: true };
}

async function issue(ctx: StageContext): Promise<StageResult> {
  const kit = loadDevKit(kitDir(ctx));
  const need = (flag: string): string => requiredOption(ctx, flag, 'dev issue');
  const systemId = need('system');
  const itemId = need('item');
  const out = resolve(need('out'));
  const refs = Array.isArray(ctx.values.ref) ? (ctx.values.ref as string[]) : [];
  const at = instantFlag(ctx.values.at, '--at') ?? nowSeconds();
  const layout = studyLayout(ctx.root);
  const loaded = loadStudyFiles(layout);
  const study = loaded.study();
  // Served verbatim from the corpus as frozen: a corpus edited since is refused, not served.
  refuseDrift(
    corpusDrift(loaded.frozen().corpus, loaded.corpusTree()),
    'dev issue serves the frozen corpus only (revert the change or freeze again)',
  );
  const item = readItems(layout, study, loaded.itemsFile()).find((i) => i.item_id === itemId);
  if (item === undefined)
    throw new PreregError('DEV_ISSUE_INVALID', `item ${JSON.stringify(itemId)} is not in the frozen corpus/${study.corpus.items}`);
  const sections = corpusSections(loaded.documents(), study.vocabulary.heading_patterns);
  const jobId = typeof ctx.values.job === 'string' ? ctx.values.job : `${systemId}-${itemId}-${at.replace(/[-:]/g, '')}`;
  const issued = await devIssue(kit, await devTsaSigner(kit.dir), sections, { system_id: systemId, item, refs, at, job_id: jobId });
  mkdirSync(out, { recursive: true });
  const files = {
    proof: join(out, 'proof.json'),
    request: join(out, 'request.json'),
    response: join(out, 'response.json'),
    timeline: join(out, 'timeline.json'),
  };
  for (const path of Object.values(files)) {
    if (existsSync(path)) throw new PreregError('OUTPUT_EXISTS', `${path} exists; dev issue writes into a new directory (--out)`, { path });
  }
  writeFileSync(files.proof, `${JSON.stringify(issued.proof, null, 2)}\n`);
  writeFileSync(files.request, `${JSON.stringify(issued.request, null, 2)}\n`);
  writeFileSync(files.response, `${JSON.stringify(issued.response, null, 2)}\n`);
  writeFileSync(files.timeline, `${JSON.stringify(issued.timeline, null, 2)}\n`);
  return {
    exitCode: EXIT.ok,
    json: { ok: true, test_only: true, system_id: systemId, item_id: itemId, refs, at, job_id: jobId, seller: kit.seller, files },
    text: [
      `TEST-ONLY proof of a retrieval call for ${JSON.stringify(systemId)} on ${itemId} at ${at}: ${refs.join(', ')} served verbatim by ${kit.seller}`,
      ...Object.entries(files).map(([k, p]) => `  ${k.padEnd(8)} ${p}`),
      `next: prereg submission build --system ${systemId} --item ${itemId} --answer TEXT --proof ${files.proof} --request ${files.request} --response ${files.response} --timeline ${files.timeline} --out FILE.jsonl`,
    ].join('\n'),
  };
}

/** A system id that can name its kit files (TEST-ONLY-agent-ID.key.pem): no separator, no dot first. */
const SYSTEM_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * One more system for a rehearsal, before its freeze: its agent key and buyer in the kit, and its
 * registration (buyer fingerprint, agent key with its proof of possession) in study.json — exactly
 * what init --rehearsal gives each of its systems. All or nothing: every file is prepared, then
 * moved into place.
 */
async function addSystem(ctx: StageContext): Promise<StageResult> {
  const systemId = ctx.positionals[1];
  if (systemId === undefined || !SYSTEM_ID.test(systemId))
    throw new PreregError(
      'USAGE',
      `dev add-system ID: a system id of letters, digits, . _ - (at most 64, not starting with . _ -), got ${JSON.stringify(systemId ?? '')}`,
    );
  const kit = loadDevKit(kitDir(ctx));
  const layout = studyLayout(ctx.root);
  // study.json is part of the frozen plan: a system added after the freeze is drift.
  if (existsSync(layout.freeze))
    throw new PreregError(
      'DEV_SYSTEM_AFTER_FREEZE',
      `${layout.freeze} exists: the study is frozen, and a system added to study.json now would be drift; nothing was written`,
      { path: layout.freeze },
    );
  const loaded = loadStudyFiles(layout);
  // The parsed study.json as it is (checked, not rewritten): what is written back is it plus one system.
  const study = loaded.study();
  if (!loaded.policy().arkforge_keys.some((k) => k.public_key === kit.issuerPublicKey)) {
    const policyFile = join(layout.trust, 'policy.json');
    throw new PreregError(
      'DEV_KIT_NOT_PINNED',
      `${policyFile} does not pin the kit's dev issuer key ${kit.issuerPublicKey}: ${kit.dir} is not this study's rehearsal kit; nothing was written`,
      { path: policyFile, kit: kit.dir },
    );
  }
  if ((study.systems ?? []).some((s) => s.system_id === systemId)) {
    throw new PreregError('DEV_SYSTEM_EXISTS', `${layout.study} already registers ${JSON.stringify(systemId)}; nothing was written`, {
      path: layout.study,
      system_id: systemId,
    });
  }
  const { system, files } = prepareDevSystem(kit, study.study_id, systemId);
  try {
    const registered = { system_id: systemId, buyer_fingerprints: [system.buyer_fingerprint], agent_keys: [system.agent_key] };
    const text = `${JSON.stringify({ ...study, systems: [...(study.systems ?? []), registered] }, null, 2)}\n`;
    // What is written is a study that loads: checked as every stage will read it.
    studyFromBytes(Buffer.from(text, 'utf8'), layout.study);
    files.push(prepareFileAtomic(layout.study, text));
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
  for (const f of files) f.commit();
  return {
    exitCode: EXIT.ok,
    json: {
      ok: true,
      test_only: true,
      study_id: study.study_id,
      system_id: systemId,
      buyer_fingerprint: system.buyer_fingerprint,
      agent_key_file: system.agent_key_file,
      agent_key: system.agent_key,
      study_file: layout.study,
    },
    text: [
      `TEST-ONLY system ${JSON.stringify(systemId)} added to the rehearsal ${study.study_id}:`,
      `  registered in ${layout.study} (buyer fingerprint ${system.buyer_fingerprint}, agent key with its proof of possession)`,
      `  agent key ${system.agent_key_file}; its dev buyer in the kit (\`dev issue --system ${systemId}\`)`,
      'next: prereg doctor, then prereg freeze (no system can be added after it)',
    ].join('\n'),
  };
}

const VERBS = ['keys', 'tsa', 'issue', 'add-system'] as const;
const VERB_OPERANDS: Record<(typeof VERBS)[number], number> = { keys: 1, tsa: 1, issue: 1, 'add-system': 2 };

export const dev: Command = {
  name: 'dev',
  summary: SUMMARY,
  help: [
    'TEST-ONLY: for a rehearsal (docs/getting-started.md); nothing these make may stand behind a real study.',
    '',
    'usage: prereg dev keys --system ID (--study-id ID | --root STUDY) --out DIR [--json]',
    '       prereg dev tsa --kit KIT [--gen-time T] [--port N] [--backend pkijs|openssl] [--json]',
    '       prereg dev issue --kit KIT --system ID --item ID --ref REF… [--at T] [--job ID] --out DIR',
    '                        [--root STUDY] [--json]',
    '       prereg dev add-system ID --kit KIT [--root STUDY] [--json]',
    '',
    'keys   a TEST-ONLY Ed25519 agent key (DIR/TEST-ONLY-agent-ID.key.pem, mode 0600) and its',
    '       agent_keys entry {public_key, possession} for study.json',
    "tsa    an RFC 3161 TSA over HTTP on 127.0.0.1 signing with the kit's TEST-ONLY CA (made in KIT",
    '       if it has none); every token dated --gen-time (default: the clock). Runs until Ctrl-C.',
    '       `openssl ts -verify -CAfile KIT/TEST-ONLY-dev-tsa-root.cert.pem` accepts its tokens.',
    "issue  a TEST-ONLY ArkForge proof (spec 2.1) of one retrieval call: the refs' sections of the",
    "       frozen corpus served verbatim, by the kit's seller, bought with the system's dev buyer",
    "       key, signed by the kit's dev issuer key, stamped by the kit's TSA (genTime --at + 1 s);",
    "       writes proof.json, request.json, response.json and timeline.json (the call's AER-1",
    '       timeline) into DIR.',
    'add-system  one more system for the rehearsal, before its freeze: a TEST-ONLY agent key',
    '       (KIT/TEST-ONLY-agent-ID.key.pem) and dev buyer in the kit, and ID registered in study.json',
    '       with its buyer fingerprint and agent key (proof of possession), as init --rehearsal',
    '       registers its own. Refuses a frozen study (DEV_SYSTEM_AFTER_FREEZE: it would be drift),',
    "       an id already there (DEV_SYSTEM_EXISTS) and another study's kit (DEV_KIT_NOT_PINNED).",
  ].join('\n'),
  options: {
    kit: { type: 'string' },
    system: { type: 'string' },
    'study-id': { type: 'string' },
    out: { type: 'string' },
    'gen-time': { type: 'string' },
    port: { type: 'string' },
    backend: { type: 'string' },
    item: { type: 'string' },
    ref: { type: 'string', multiple: true },
    at: { type: 'string' },
    job: { type: 'string' },
  },
  stage: false,
  jsonSchema: (ctx) =>
    (({ tsa: 'prereg.dev-tsa/1', issue: 'prereg.dev-issue/1', 'add-system': 'prereg.dev-add-system/1' }) as Record<string, string>)[
      ctx.positionals[0] ?? ''
    ] ?? 'prereg.dev-keys/1',
  operands: { min: 1, max: 2 },
  async run(ctx) {
    const verb = VERBS.find((v) => v === ctx.positionals[0]);
    if (verb === undefined) throw new PreregError('USAGE', 'usage: prereg dev keys | tsa | issue | add-system … (prereg help dev)');
    // Each verb's own count: `dev add-system ID` takes its id, the others no word after the verb.
    if (ctx.positionals.length !== VERB_OPERANDS[verb])
      throw new PreregError(
        'USAGE',
        verb === 'add-system'
          ? 'usage: prereg dev add-system ID --kit KIT [--root STUDY]'
          : `dev ${verb} takes no positional argument after ${verb}, got "${ctx.positionals[1]}" (prereg help dev)`,
      );
    return verb === 'keys' ? keys(ctx) : verb === 'tsa' ? tsa(ctx) : verb === 'issue' ? issue(ctx) : addSystem(ctx);
  },
};
