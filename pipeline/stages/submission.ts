// `prereg submission sign FILE --key K --system ID`: the participant's tool (SPEC §12.2), offline.
// Writes a signed intake request beside FILE (FILE.intake.json, or --out): the agent key's
// Ed25519 signature over canonical {study_id, system_id, freeze_digest, kind, sha256, bytes},
// study_id and freeze_digest read from the study's freeze.json. The request names its file by
// name only (`file`): the operator's `prereg intake` finds it beside the request, or is given --file.
import { basename } from 'node:path';
import { agentKeyText, signCanonical } from '../evidence/intake/ed25519.ts';
import { INTAKE_KINDS, INTAKE_REQUEST_FORMAT, requestPayload, type IntakeKind, type IntakeRequest } from '../evidence/intake/records.ts';
import { sha256Hex } from '../formats/hash.ts';
import { readEd25519PrivateKey } from '../intake/keys.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { freezeDigest, loadFreezeRecord } from '../study/freeze-record.ts';
import { loadStudy } from '../study/study.ts';
import type { Command } from '../command.ts';

export const submission: Command = {
  name: 'submission',
  summary: 'participant tools: `submission sign FILE --key K --system ID` writes a signed intake request',
  help: [
    'usage: prereg submission sign FILE --key KEY.pem --system ID [--kind submissions|commitments]',
    '                              [--out REQUEST.json] [--root DIR] [--json]',
    '',
    '  --key FILE     the system\'s Ed25519 private key (PKCS#8 PEM); its public half must be one of',
    '                 the system\'s agent_keys in study.json',
    '  --kind K       submissions (default) or commitments (the system\'s own AER-1 commitments)',
    '  --out FILE     where to write the request (default FILE.intake.json, beside FILE)',
    '',
    'Reads study_id and freeze_digest from the study\'s preregistration/freeze.json (--root), and',
    'signs canonical {study_id, system_id, freeze_digest, kind, sha256, bytes} of FILE. Send the',
    'request with FILE to the operator, who runs `prereg intake REQUEST`. docs/intake.md.',
  ].join('\n'),
  options: { key: { type: 'string' }, system: { type: 'string' }, kind: { type: 'string' }, out: { type: 'string' } },
  stage: false,
  async run(ctx) {
    const [verb, file, ...rest] = ctx.positionals;
    if (verb !== 'sign' || file === undefined || rest.length > 0) throw new PreregError('USAGE', 'usage: prereg submission sign FILE --key KEY.pem --system ID');
    const systemId = ctx.values.system;
    if (typeof systemId !== 'string') throw new PreregError('USAGE', '--system ID is required');
    const kind = (ctx.values.kind ?? 'submissions') as IntakeKind;
    if (!INTAKE_KINDS.includes(kind)) throw new PreregError('USAGE', '--kind is submissions or commitments');
    const key = readEd25519PrivateKey(ctx.values.key, '--key');
    const layout = studyLayout(ctx.root);
    const frozen = loadFreezeRecord(layout.freeze);
    const publicKey = agentKeyText(key);
    // Refused here rather than at intake: a key the study does not register for the system.
    const study = loadStudy(layout.study);
    const system = study.systems?.find((s) => s.system_id === systemId);
    if (!system?.agent_keys?.some((k) => k.public_key === publicKey)) {
      throw new PreregError('INTAKE_SIGNATURE_INVALID', `${publicKey} is not one of ${JSON.stringify(systemId)}'s agent_keys in study.json; intake would refuse the request`);
    }
    const data = readRegularFile(file);
    const unsigned = { study_id: frozen.study_id, system_id: systemId, freeze_digest: freezeDigest(frozen), kind, sha256: sha256Hex(data), bytes: data.length };
    const request: IntakeRequest = {
      format: INTAKE_REQUEST_FORMAT,
      ...unsigned,
      file: basename(file),
      public_key: publicKey,
      signature: signCanonical(key, requestPayload(unsigned)),
    };
    const out = typeof ctx.values.out === 'string' ? ctx.values.out : `${file}.intake.json`;
    writeFileAtomic(out, `${JSON.stringify(request, null, 2)}\n`);
    return {
      exitCode: EXIT.ok,
      json: { ok: true, request: out, ...unsigned },
      text: `signed ${kind} of ${systemId}: ${data.length} bytes, SHA-256 ${unsigned.sha256}\nrequest written to ${out} (send it with ${basename(file)} to the operator)`,
    };
  },
};
