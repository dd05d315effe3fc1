// The example's report.html in a real headless Chromium at 1280×900: the finding (one sentence per
// system and the primary metric's chart) sits inside the first viewport, the hypotheses start in
// it, and the page loads nothing — checked on the DevTools protocol's record of every request,
// against a control page that does load something, so the check is seen to fail when it should.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_ARGS } from '../emit/helpers.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';
import { chromiumVersion, CHROMIUM, pngSize, renderPage, type RenderedPage } from '../support/headless-chromium.ts';

const VIEWPORT = { width: 1280, height: 900 };
const SCREENSHOT = join(PROJECT_ROOT, 'work/browser/report-first-screen.png');

describe('report.html in headless Chromium (1280×900)', () => {
  let study: { root: string; cleanup: () => void };
  let scratch: string;
  let reportUrl: string;
  let page: RenderedPage;
  beforeAll(async () => {
    // No silent skip: without the browser this check did not run, so the suite must not pass.
    if (chromiumVersion() === null) throw new Error(`${CHROMIUM} is not installed: apt-get install chromium (.ci/run does), or set PREREG_CHROMIUM`);
    study = copyExampleStudy();
    scratch = mkdtempSync(join(tmpdir(), 'prereg-browser-'));
    const outputs = join(scratch, 'outputs');
    const run = await runCli(['run', '--root', study.root, '--outputs', outputs, ...KEY_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    reportUrl = pathToFileURL(join(outputs, readdirSync(outputs)[0]!, 'report.html')).href;
    page = await renderPage(reportUrl, ['#finding-summary', '#primary-chart', '#finding table'], VIEWPORT);
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    writeFileSync(SCREENSHOT, page.png); // for people to look at; work/ is not committed
  });
  afterAll(() => {
    study?.cleanup();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('renders at the requested viewport and screenshots it', () => {
    expect(page.viewport).toEqual(VIEWPORT);
    expect(pngSize(page.png)).toEqual(VIEWPORT);
  });

  it('shows the summary sentences and the primary chart inside the first viewport, and the hypotheses start there', () => {
    for (const selector of ['#finding-summary', '#primary-chart']) {
      const r = page.rects[selector];
      expect(r, selector).not.toBeNull();
      expect(r!.top, selector).toBeGreaterThanOrEqual(0);
      expect(r!.left, selector).toBeGreaterThanOrEqual(0);
      expect(r!.bottom, selector).toBeLessThanOrEqual(VIEWPORT.height);
      expect(r!.right, selector).toBeLessThanOrEqual(VIEWPORT.width);
    }
    expect(page.rects['#finding table']!.top).toBeLessThan(VIEWPORT.height);
  });

  it('loads nothing but the document itself', () => {
    expect(page.requests).toEqual([reportUrl]);
  });

  it('the request record does catch a page that loads something (control)', async () => {
    const control = join(scratch, 'control.html');
    writeFileSync(control, '<!DOCTYPE html><html><body><p>control</p><img src="http://127.0.0.1:9/pixel.png" alt=""></body></html>');
    const loaded = await renderPage(pathToFileURL(control).href, ['p'], VIEWPORT);
    expect(loaded.requests).toContain('http://127.0.0.1:9/pixel.png');
    expect(loaded.requests.length).toBeGreaterThan(1);
  });
});
