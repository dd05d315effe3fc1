// A participant's signed request dated by a TSA of its own choosing (docs/participating.md): the
// RFC 3161 token over the request digest is kept beside the request, REQUEST.tsr for
// REQUEST.json. `submission sign --tsa` writes the pair; `audit --request` reads it back.
import { existsSync } from 'node:fs';
import { readJsonFile } from '../io/json-files.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { PreregError } from '../reasons.ts';

/** Where the token of the request at `requestPath` is kept. */
export function requestTokenPath(requestPath: string): string {
  return `${requestPath.replace(/\.json$/, '')}.tsr`;
}

/** A request as the auditor obtained it from its participant, with its token when one is beside it. */
export interface DatedRequest {
  file: string;
  value: unknown;
  /** The token's bytes; null when there is none beside the request (the request is undated). */
  token: Uint8Array | null;
}

/** `--request` files; FILE_NOT_FOUND (exit 3) for a request that does not exist. */
export function readDatedRequests(files: readonly string[]): DatedRequest[] {
  return files.map((file) => {
    if (!existsSync(file)) throw new PreregError('FILE_NOT_FOUND', `--request ${file}: no such file`, { path: file });
    const tokenPath = requestTokenPath(file);
    return { file, value: readJsonFile(file), token: existsSync(tokenPath) ? readRegularFile(tokenPath) : null };
  });
}
