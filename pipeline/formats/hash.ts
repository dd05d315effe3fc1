// SHA-256 as the study writes it everywhere: 64 lowercase hex digits (files, lines, canonical JSON).
import { hash } from 'node:crypto';

/** SHA-256 of a string (as UTF-8) or of bytes, as 64 lowercase hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** 64 lowercase hex digits: a SHA-256 as written in our files and tables. */
export const HEX64 = /^[0-9a-f]{64}$/;

export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && HEX64.test(value);
}
