// The private keys of intake, read from PEM files the user names: a participant's agent key
// (`submission sign --key`) and the operator's intake key (`intake --operator-key`). The pinned
// public halves are study/operator-key.ts's; these are never read from the study itself.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { shown } from '../text/display.ts';
import { existsSync } from 'node:fs';
import { readText } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';

/** An Ed25519 private key from a PKCS#8 PEM file; USAGE for a missing flag, OPERATOR_KEY_INVALID otherwise. */
export function readEd25519PrivateKey(path: unknown, flag: string): KeyObject {
  if (typeof path !== 'string') throw new PreregError('USAGE', `${flag} FILE (an Ed25519 private key, PKCS#8 PEM) is required`);
  return readEd25519Pem(path, flag, 'private');
}

/** A PEM public key file given on the command line (a participant pins the intake key itself). */
export function readEd25519PublicKey(path: string, flag: string): KeyObject {
  return readEd25519Pem(path, flag, 'public');
}

function readEd25519Pem(path: string, flag: string, type: 'private' | 'public'): KeyObject {
  if (!existsSync(path)) throw new PreregError('FILE_NOT_FOUND', `${flag} ${shown(path)} does not exist`, { path });
  const code = type === 'private' ? 'OPERATOR_KEY_INVALID' : 'USAGE';
  let key: KeyObject;
  try {
    key = type === 'private' ? createPrivateKey(readText(path)) : createPublicKey(readText(path));
  } catch {
    throw new PreregError(code, `${flag} ${shown(path)} is not a PEM ${type} key`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new PreregError(code, `${flag} ${shown(path)} is ${key.asymmetricKeyType ?? 'unknown'}, not Ed25519`);
  return key;
}
