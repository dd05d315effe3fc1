// The total and ETA appended to a progress line on a terminal: the work done so far, at the rate
// seen since the work started, says how long the rest takes.

/** " [done/total, ETA 12s]"; no ETA before any work is done (no rate yet). */
export function etaSuffix(done: number, total: number, elapsedMs: number): string {
  if (done <= 0) return ` [${done}/${total}]`;
  const remainingMs = (elapsedMs / done) * Math.max(0, total - done);
  return ` [${done}/${total}, ETA ${formatDuration(remainingMs)}]`;
}

export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
