// `prereg trust import-arkforge FILE [--trust DIR]`: pins ArkForge's published key history in the
// trust policy — its Ed25519 proof keys in arkforge_keys, its rekor keys as PEM files and
// tlog_submitter_keys entries — leaving every other member untouched (docs/trust.md). A utility
// an operator runs before the freeze, not a pipeline stage: it has no Taskfile task.
//
// Everything is decided before anything is written: the file is parsed, the plan made, and the
// resulting policy loaded as every stage will load it (schema, every named file decoded). Then
// the new PEM files and policy.json are written atomically; a run that changes nothing writes
// nothing.
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildTrustMaterialFrom } from '../evidence/trust/index.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { decodeText, readText } from '../io/json-files.ts';
import { readRegularFileCapped } from '../io/regular-file.ts';
import { shown } from '../text/display.ts';
import { checkTrustPolicy, loadTrustPolicy, readTrustInputs, renderTrustPolicy, trustPath } from '../io/trust-files.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { parseArkForgeKeyHistory, planArkForgeImport, type ImportedKey } from '../trust-import/index.ts';
import type { Command, StageResult } from '../command.ts';
import { certifyIntakeKeyCommand } from '../trust-import/intake-key.ts';

/** A published key history larger than this is refused before it is parsed (ArkForge's own is a few KB). */
export const MAX_KEY_HISTORY_BYTES = 8 * 1024 * 1024;

const USAGE =
  'usage: prereg trust import-arkforge FILE [--trust DIR] [--json]\n       prereg trust certify-intake-key INTAKE.pub.pem --operator-key OPERATOR.key.pem [--root DIR] [--json]';

export const trust: Command = {
  name: 'trust',
  summary:
    "edit the trust policy: `trust import-arkforge FILE` pins ArkForge's published keys; `trust certify-intake-key` certifies an intake key",
  help: [
    USAGE,
    '',
    "Reads ArkForge's published_keys.json ({keys: [{kid, type: Ed25519, public, valid_from, retired_at}],",
    'rekor_keys: [{kid, type: ECDSA-P256-SHA256, public_pem, valid_from, retired_at}]}) and pins',
    'its proof keys in arkforge_keys and its rekor keys (the keys that sign its transparency-log',
    'entries) as tlog-submitters/<kid>.pub.pem with tlog_submitter_keys entries; retired_at null',
    'becomes valid_until null (no end). Every other member of policy.json is left as it is.',
    '',
    '  --trust DIR   the trust directory (default preregistration/trust under --root)',
    '',
    'A second run changes nothing. A malformed file is ARKFORGE_KEYS_INVALID (exit 3); a kid',
    'already pinned with another key is ARKFORGE_KEY_CONFLICT (exit 4); both write nothing.',
    'The trust directory is frozen: import before `prereg freeze` (or freeze again).',
    '',
    'certify-intake-key: the operator key (the private half of operator_public_key) certifies',
    'INTAKE.pub.pem, an Ed25519 public key inside the trust directory, for the study: writes',
    '<name>.cert.json beside it (prereg.intake-key-certificate/1) and pins both in the policy',
    '(intake_public_key, intake_key_certificate). Every receipt carries it: a receipt under any key',
    'the operator certified counts as the operator\'s (docs/trust.md, "The operator\'s identity").',
  ].join('\n'),
  options: { trust: { type: 'string' }, 'operator-key': { type: 'string' } },
  stage: false,
  jsonSchema: (ctx) =>
    ctx.positionals[0] === 'certify-intake-key' ? 'prereg.trust-certify-intake-key/1' : 'prereg.trust-import-arkforge/1',
  operands: { min: 1, max: 2 },
  async run(ctx) {
    const [verb, file, ...rest] = ctx.positionals;
    if (verb === 'certify-intake-key' && file !== undefined && rest.length === 0)
      return certifyIntakeKeyCommand(studyLayout(ctx.root), resolve(file), ctx.values['operator-key']);
    if (verb !== 'import-arkforge' || file === undefined || rest.length > 0) {
      throw new PreregError(
        'USAGE',
        verb === undefined || verb === 'import-arkforge' ? USAGE : `unknown trust command "${verb}"; ${USAGE}`,
      );
    }
    const dir = typeof ctx.values.trust === 'string' ? resolve(ctx.values.trust) : studyLayout(ctx.root).trust;
    return importArkForge(dir, file);
  },
};

async function importArkForge(dir: string, file: string): Promise<StageResult> {
  const policyFile = join(dir, 'policy.json');
  if (!existsSync(policyFile)) {
    throw new PreregError('FILE_NOT_FOUND', `${policyFile} does not exist; pass --trust DIR (the directory holding the trust policy)`, {
      path: policyFile,
    });
  }
  const bytes = readRegularFileCapped(file, MAX_KEY_HISTORY_BYTES);
  if (bytes === null) {
    throw new PreregError(
      'ARKFORGE_KEYS_TOO_LARGE',
      `${shown(file)} is larger than ${MAX_KEY_HISTORY_BYTES} bytes, the cap on a published key history; nothing was read or written`,
      { path: file, max_bytes: MAX_KEY_HISTORY_BYTES },
    );
  }
  const history = parseArkForgeKeyHistory(decodeText(bytes, file), file);
  const policy = loadTrustPolicy(dir);
  const existing = (rel: string): string | undefined => {
    const path = trustPath(dir, rel);
    return existsSync(path) ? readText(path) : undefined;
  };
  const plan = planArkForgeImport(policy, history, existing);

  // The policy as every stage will read it: schema, then every file it names (the new ones from the plan).
  const next = checkTrustPolicy(plan.policy, `${policyFile} (after the import)`);
  const pending = new Map(plan.files.map((f) => [f.path, f.text]));
  buildTrustMaterialFrom(readTrustInputs(dir, next, (rel) => pending.get(rel) ?? readText(trustPath(dir, rel))));

  // Each file atomically, the policy last; files this run created are removed if a later write
  // fails, so a failed import leaves the trust directory as it was (they were absent before).
  const written: string[] = [];
  try {
    for (const f of plan.files) {
      writeFileAtomic(trustPath(dir, f.path), f.text);
      written.push(f.path);
    }
    if (plan.policyChanged) {
      writeFileAtomic(policyFile, renderTrustPolicy(next));
      written.push('policy.json');
    }
  } catch (err) {
    for (const path of written) rmSync(trustPath(dir, path), { force: true });
    throw err;
  }
  const changed = written.length > 0;
  const json = { ok: true, changed, trust_dir: dir, source: file, written, keys: plan.keys };
  return { exitCode: EXIT.ok, json, text: render(json.keys, written, dir) };
}

function render(keys: ImportedKey[], written: string[], dir: string): string {
  const window = (k: ImportedKey) => `[${k.valid_from}, ${k.valid_until ?? 'no end'})`;
  const lines = keys.map((k) => `  ${k.action.padEnd(9)} ${k.list} ${k.key_id} ${window(k)}${k.file ? ` ${k.file}` : ''}`);
  lines.push(
    written.length === 0
      ? `${dir}: nothing changed`
      : `${dir}: wrote ${written.join(', ')}; the trust directory is frozen: run \`prereg freeze\` (again) before the study opens`,
  );
  return lines.join('\n');
}
