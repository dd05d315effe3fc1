// `prereg commitment TIMELINE [--sign KEY]`: the participant's tool (docs/participating.md). Prints
// (or appends to --out) the external commitment to an AER-1 timeline, as the draft defines it,
// optionally signed by the system's agent key so that it binds its owner (SPEC §12.3). Offline.
import { appendFileSync } from 'node:fs';
import { canonicalJson } from '../formats/canonical-json.ts';
import { readEd25519PrivateKey } from '../intake/keys.ts';
import { parseJsonAt, readText } from '../io/json-files.ts';
import { commitTimeline } from '../participant/commitment.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';

const nowSeconds = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const commitment: Command = {
  name: 'commitment',
  summary: "compute an AER-1 timeline's external commitment (job, final entry digest, count), optionally signed by the agent key",
  help: [
    'usage: prereg commitment TIMELINE.json [--published-at T] [--sign KEY.pem] [--out FILE.jsonl] [--json]',
    '',
    '  --published-at T  when the commitment is published (RFC 3339; default: now). A study counts it',
    '                    only when T is before its closes_at.',
    "  --sign KEY.pem    the system's Ed25519 agent key (PKCS#8 PEM): adds `signature`, Ed25519 over",
    '                    the canonical JSON of the commitment without it (a signed commitment binds its',
    "                    owner: only it can cancel the owner's timeline, SPEC §12.3)",
    '  --out FILE        append the commitment as one line of FILE (a commitments JSONL file, which',
    '                    `submission sign --kind commitments` signs for intake); default: print it',
    '',
    'Refuses a timeline that breaks a chain rule (COMMITMENT_TIMELINE_BROKEN). docs/participating.md.',
  ].join('\n'),
  options: { 'published-at': { type: 'string' }, sign: { type: 'string' }, out: { type: 'string' } },
  stage: false,
  jsonSchema: () => 'prereg.commitment/1',
  operands: { min: 1, max: 1 },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new PreregError('USAGE', 'usage: prereg commitment TIMELINE.json [--sign KEY.pem]');
    const file = ctx.positionals[0]!;
    const timeline = parseJsonAt(readText(file), file);
    const key = ctx.values.sign === undefined ? undefined : readEd25519PrivateKey(ctx.values.sign, '--sign');
    const publishedAt = typeof ctx.values['published-at'] === 'string' ? ctx.values['published-at'] : nowSeconds();
    const result = commitTimeline(timeline, publishedAt, key);
    const line = canonicalJson(result.commitment);
    const out = typeof ctx.values.out === 'string' ? ctx.values.out : null;
    if (out !== null) appendFileSync(out, `${line}\n`);
    const { commitment: c } = result;
    return {
      exitCode: EXIT.ok,
      json: {
        ok: true,
        commitment: c,
        construction: result.construction,
        signed_by: result.signed_by,
        ...(out !== null ? { appended_to: out } : {}),
      },
      text:
        out === null
          ? line
          : `commitment to job ${JSON.stringify(c.job_id)}: ${c.entry_count} entries, final entry digest ${c.final_entry_digest}${result.signed_by ? `, signed by ${result.signed_by}` : ''}\nappended to ${out}`,
    };
  },
};
