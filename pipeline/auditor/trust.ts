// The auditor's own trust (SPEC §12.1): the TSA roots (`--tsa-root PEM`, repeatable) and the
// issuer's key history (`--issuer-keys FILE`, ArkForge's published_keys.json) that an auditor
// obtained out of band. What the study itself supplies never vouches for the study: these are
// read from the auditor's files only; the study's tsa_certs are kept as path material (never
// roots), as for the study's own verification.
import { existsSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { readEd25519PublicKey } from '../intake/keys.ts';
import { loadTsaTrust, type TsaTrust } from '../evidence/timestamp/index.ts';
import type { TrustMaterialInputs } from '../formats/trust-policy.ts';
import { readText } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';
import { parseArkForgeKeyHistory, type PublishedProofKey } from '../trust-import/arkforge-keys.ts';

export interface AuditorRoots {
  /** The texts of the files given, in their order. */
  pems: string[];
  /** The roots with the study's tsa_certs as untrusted path material. */
  tsa: TsaTrust;
}

function readGiven(path: string, flag: string): string {
  if (!existsSync(path)) throw new PreregError('FILE_NOT_FOUND', `${flag} ${path}: no such file`, { path });
  return readText(path);
}

/**
 * `--tsa-root` files decoded, or null when none was given; TSA_TRUST_INVALID for a file without a
 * certificate. `study` gives the study's tsa_certs as path material (null: none, its trust
 * directory being unreadable).
 */
export function loadAuditorRoots(files: readonly string[] | undefined, study: TrustMaterialInputs | null): AuditorRoots | null {
  if (!files || files.length === 0) return null;
  const pems = files.map((f) => readGiven(f, '--tsa-root'));
  return { pems, tsa: loadTsaTrust(pems, study?.tsaCertPems ?? [], { roots: files, certs: study?.policy.tsa_certs ?? [] }) };
}

/**
 * The TSA material `verify-token` is given: `--tsa-root` files pinned as roots, `--tsa-cert`
 * files as path material only (never anchors). FILE_NOT_FOUND for a missing file,
 * TSA_TRUST_INVALID for one without a certificate.
 */
export function loadGivenTsaTrust(rootFiles: readonly string[], certFiles: readonly string[]): TsaTrust {
  const roots = rootFiles.map((f) => readGiven(f, '--tsa-root'));
  const certs = certFiles.map((f) => readGiven(f, '--tsa-cert'));
  return loadTsaTrust(roots, certs, { roots: rootFiles, certs: certFiles });
}

export interface AuditorOperatorKey {
  file: string;
  key: KeyObject;
}

/**
 * `--operator-key`: the operator's identity key (an Ed25519 public key, PEM) as the operator
 * published it, or null. FILE_NOT_FOUND when missing, USAGE when it is not an Ed25519 public key.
 */
export function loadAuditorOperatorKey(file: string | undefined): AuditorOperatorKey | null {
  return file === undefined ? null : { file, key: readEd25519PublicKey(file, '--operator-key') };
}

export interface AuditorIssuerKeys {
  file: string;
  keys: PublishedProofKey[];
}

/** `--issuer-keys` read as ArkForge's published_keys.json (ARKFORGE_KEYS_INVALID otherwise), or null. */
export function loadAuditorIssuerKeys(file: string | undefined): AuditorIssuerKeys | null {
  if (file === undefined) return null;
  return { file, keys: parseArkForgeKeyHistory(readGiven(file, '--issuer-keys'), file).proofKeys };
}
