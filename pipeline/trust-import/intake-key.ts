// `prereg trust certify-intake-key PUB.pem --operator-key OP.pem` (SPEC §13.4, docs/trust.md): the
// operator's identity key (the private half of operator_public_key) certifies an intake key for
// the study, so that every receipt signed with it counts as the operator's. The key file must lie
// in the trust directory; the certificate is written beside it (<name>.cert.json) and the policy
// names both (intake_public_key, intake_key_certificate). Before the freeze, like every trust edit.
import { rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { certifyIntakeKey } from '../evidence/intake/key-certificate.ts';
import { sameKey } from '../evidence/intake/ed25519.ts';
import { readEd25519PrivateKey, readEd25519PublicKey } from '../intake/keys.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { checkTrustPolicy, renderTrustPolicy, trustPath } from '../io/trust-files.ts';
import type { StudyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import type { StageResult } from '../command.ts';
import { withMember } from './arkforge-keys.ts';

export async function certifyIntakeKeyCommand(layout: StudyLayout, keyFile: string, operatorKeyFile: unknown): Promise<StageResult> {
  const dir = layout.trust;
  const named = relative(dir, keyFile).split('\\').join('/');
  trustPath(dir, named); // TRUST_POLICY_INVALID outside the trust directory: an unfrozen key would certify nothing
  const intakeKey = readEd25519PublicKey(keyFile, 'certify-intake-key');
  const operator = readEd25519PrivateKey(operatorKeyFile, '--operator-key');
  const loaded = loadStudyFiles(layout);
  const policy = loaded.policy();
  const pinned = loaded.operatorKey();
  if (!sameKey(operator, pinned.key))
    throw new PreregError(
      'OPERATOR_KEY_MISMATCH',
      `--operator-key's public half is not the operator_public_key pinned in ${pinned.file}: only the operator's identity certifies an intake key; nothing was written`,
    );
  const studyId = loaded.study().study_id;
  const certificate = certifyIntakeKey(operator, studyId, intakeKey);
  const certNamed = join(dirname(named), `${basename(named).replace(/\.pem$/, '')}.cert.json`)
    .split('\\')
    .join('/');
  const next = checkTrustPolicy(
    withMember(withMember(policy, 'intake_public_key', named), 'intake_key_certificate', certNamed),
    `${join(dir, 'policy.json')} (after certifying)`,
  );
  writeFileAtomic(trustPath(dir, certNamed), `${JSON.stringify(certificate, null, 2)}\n`);
  try {
    writeFileAtomic(join(dir, 'policy.json'), renderTrustPolicy(next));
  } catch (err) {
    rmSync(trustPath(dir, certNamed), { force: true });
    throw err;
  }
  const json = { ok: true, study_id: studyId, intake_public_key: named, intake_key_certificate: certNamed, certificate };
  return {
    exitCode: EXIT.ok,
    json,
    text: `${certNamed}: the operator key certifies ${certificate.intake_key} for ${studyId}; policy.json pins it as intake_public_key. The trust directory is frozen: run \`prereg freeze\` (again) before the study opens`,
  };
}
