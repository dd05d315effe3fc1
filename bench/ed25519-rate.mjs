// The raw Ed25519 rate: crypto.verify with an imported KeyObject over 64-byte messages (as the
// chain-hash hex a proof signs), for `seconds`. Plain JS so that it runs as a worker thread as it
// is (no TypeScript loader): bench/verify.ts runs it on its own thread and on two workers at once.
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

export function ed25519Rate(keyPem, seconds) {
  return ed25519Measure(keyPem, seconds).rate;
}

/**
 * The rate (per second of wall time) and the CPU one verify costs (µs of this process's CPU; run
 * it while no other thread of the process works). On a loaded machine the wall rate drops with
 * the load and the CPU cost does not, so CPU per proof is divided by the CPU cost.
 */
export function ed25519Measure(keyPem, seconds) {
  const key = createPrivateKey(keyPem);
  const pub = createPublicKey(key);
  const msgs = Array.from({ length: 256 }, (_, i) => Buffer.from(String(i).padStart(64, '0')));
  const sigs = msgs.map((m) => sign(null, m, key));
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < msgs.length; i++) if (!verify(null, msgs[i], pub, sigs[i])) throw new Error('bench: signature did not verify');
    n += msgs.length;
  }
  const used = process.cpuUsage(cpu);
  const end = performance.now();
  // Absolute instants, so that rates measured on several threads can be put on one time line.
  return {
    rate: n / ((end - start) / 1000),
    cpuMicros: (used.user + used.system) / n,
    count: n,
    startedAt: performance.timeOrigin + start,
    endedAt: performance.timeOrigin + end,
  };
}

if (!isMainThread && workerData?.ed25519Rate) parentPort.postMessage(ed25519Measure(workerData.keyPem, workerData.seconds));
