/** See ed25519-rate.mjs. */
export function ed25519Rate(keyPem: string, seconds: number): number;
export function ed25519Measure(keyPem: string, seconds: number): { rate: number; cpuMicros: number; count: number; startedAt: number; endedAt: number };
