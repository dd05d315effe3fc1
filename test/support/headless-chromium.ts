// A real headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4, no WebSocket, no port), to render
// a page at a fixed viewport, read element geometry, take a screenshot and record every network
// request the page makes. Used by the report's browser test; .ci/run installs the package.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = process.env.PREREG_CHROMIUM ?? 'chromium';

/** Whether the browser can be started: the test refuses to pass silently without it. */
export function chromiumVersion(): string | null {
  const r = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export interface Rect {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export interface RenderedPage {
  viewport: { width: number; height: number };
  /** Bounding rectangles of the requested selectors (null: no such element). */
  rects: Record<string, Rect | null>;
  /** Every request the page started (the document's own URL included), in order. */
  requests: string[];
  png: Buffer;
  /** The value of the `measure` expression evaluated in the page (null without one). */
  probed: unknown;
}

type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
};

class DevTools {
  private next = 1;
  private pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  private listeners: Array<(m: Message) => void> = [];
  private buffer = '';

  constructor(
    private readonly input: Writable,
    output: Readable,
  ) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\0'); end !== -1; end = this.buffer.indexOf('\0')) {
        const message = JSON.parse(this.buffer.slice(0, end)) as Message;
        this.buffer = this.buffer.slice(end + 1);
        if (message.id !== undefined) {
          const p = this.pending.get(message.id);
          this.pending.delete(message.id);
          if (message.error) p?.reject(new Error(message.error.message));
          else p?.resolve(message.result ?? {});
        } else for (const l of this.listeners) l(message);
      }
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.next++;
    this.input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  on(listener: (m: Message) => void): void {
    this.listeners.push(listener);
  }

  /** The browser went away: every pending command fails instead of waiting forever. */
  closed(reason: string): void {
    for (const p of this.pending.values()) p.reject(new Error(reason));
    this.pending.clear();
  }

  waitFor(method: string): Promise<Message> {
    return new Promise((resolve) => this.on((m) => m.method === method && resolve(m)));
  }
}

/**
 * Renders `url` at width × height and reports what the first viewport shows and what it loaded;
 * `measure`, a JavaScript expression, measures anything else in the page (its value, as JSON).
 */
export async function renderPage(
  url: string,
  selectors: string[],
  viewport = { width: 1280, height: 900 },
  measure = 'null',
): Promise<RenderedPage> {
  const profile = mkdtempSync(join(tmpdir(), 'prereg-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-extensions',
      '--disable-crash-reporter',
      '--hide-scrollbars',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cdp = new DevTools(child.stdio[3] as Writable, child.stdio[4] as Readable);
  child.once('exit', (code, signal) => cdp.closed(`${CHROMIUM} exited (${signal ?? code}) before answering`));
  child.once('error', (err) => cdp.closed(`${CHROMIUM} could not start: ${err.message}`));
  try {
    const { targetId } = (await cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    const requests: string[] = [];
    cdp.on((m) => {
      if (m.sessionId === sessionId && m.method === 'Network.requestWillBeSent')
        requests.push(String((m.params?.request as { url: string } | undefined)?.url));
    });
    const send = (method: string, params: Record<string, unknown> = {}) => cdp.send(method, params, sessionId);
    await send('Network.enable');
    await send('Page.enable');
    await send('Emulation.setDeviceMetricsOverride', {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    const loaded = cdp.waitFor('Page.loadEventFired');
    await send('Page.navigate', { url });
    await loaded;
    const probe = `JSON.stringify({ rects: Object.fromEntries(${JSON.stringify(selectors)}.map((s) => {
      const e = document.querySelector(s); if (!e) return [s, null];
      const r = e.getBoundingClientRect(); return [s, { top: r.top, bottom: r.bottom, left: r.left, right: r.right }];
    })), width: window.innerWidth, height: window.innerHeight, probed: (${measure}) })`;
    const evaluated = (await send('Runtime.evaluate', { expression: probe, returnByValue: true })) as { result: { value: string } };
    const geometry = JSON.parse(evaluated.result.value) as {
      rects: Record<string, Rect | null>;
      width: number;
      height: number;
      probed: unknown;
    };
    const shot = (await send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    return {
      viewport: { width: geometry.width, height: geometry.height },
      rects: geometry.rects,
      requests,
      png: Buffer.from(shot.data, 'base64'),
      probed: geometry.probed,
    };
  } finally {
    // Browser.close lets Chromium take its own child processes down; a kill is the fallback.
    if (child.exitCode === null && child.signalCode === null) {
      const fallback = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await cdp.send('Browser.close').catch(() => undefined);
      await exited;
      clearTimeout(fallback);
    }
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
