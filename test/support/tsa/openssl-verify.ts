// OpenSSL's own verdict on a token: `openssl ts -verify`, the reference verify-token agrees with.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface OpensslVerifyInput {
  token: string;
  /** Exactly one of data, digest (hex) and query (a .tsq file, `-queryfile`). */
  data?: string;
  digest?: string;
  query?: string;
  /** PEM root files, joined into one -CAfile written in `scratch`. */
  roots: string[];
  untrusted?: string[];
  /** Validity time (seconds since the epoch), as -attime; absent: openssl's clock. */
  attime?: number;
  /** A directory for the joined CA file. */
  scratch: string;
}

/** OpenSSL's verdict and what it printed (the reason of a failure is in `output`). */
export function opensslTsVerify(input: OpensslVerifyInput): { ok: boolean; output: string } {
  const caFile = path.join(input.scratch, `ca-${Math.random().toString(16).slice(2)}.pem`);
  writeFileSync(caFile, input.roots.map((r) => readFileSync(r, 'utf8')).join('\n'));
  const args = ['ts', '-verify', '-in', input.token, '-CAfile', caFile];
  if (input.data !== undefined) args.push('-data', input.data);
  if (input.digest !== undefined) args.push('-digest', input.digest);
  if (input.query !== undefined) args.push('-queryfile', input.query);
  for (const cert of input.untrusted ?? []) args.push('-untrusted', cert);
  if (input.attime !== undefined) args.push('-attime', String(input.attime));
  const run = spawnSync('openssl', args, { encoding: 'utf8' });
  const output = `${run.stdout}${run.stderr}`;
  const verdict = /Verification: (OK|FAILED)/.exec(output)?.[1];
  if (verdict === undefined) throw new Error(`openssl ts -verify did not judge: ${output}`);
  if ((run.status === 0) !== (verdict === 'OK')) throw new Error(`openssl ts -verify exit ${run.status} with ${verdict}: ${output}`);
  return { ok: verdict === 'OK', output };
}
