/** See ed25519-rate.mjs. */
export function ed25519Rate(keyPem: string, seconds: number): number;
