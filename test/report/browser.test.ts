// The example's report.html in a real headless Chromium at 1280×900: the finding (one sentence per
// system and the primary metric's chart) sits inside the first viewport, the hypotheses start in
// it, and the page loads nothing — checked on the DevTools protocol's record of every request,
// against a control page that does load something, so the check is seen to fail when it should.
// At 400 px (a phone) the page never scrolls sideways: a table wider than the screen scrolls in its
// own box, a chart shrinks to fit. The small charts of every metric sit on one grid: each row's
// second chart starts at the same x.
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
const NARROW = { width: 400, height: 900 };
const NARROW_SCREENSHOT = join(PROJECT_ROOT, 'work/browser/report-400px.png');

interface Box {
  left: number;
  right: number;
  top: number;
}
interface Layout {
  scrollWidth: number;
  /** Each table: its own box, the box it sits in, and whether that box scrolls sideways. */
  tables: Array<{ table: Box; container: Box; overflowX: string }>;
  /** Each chart drawing (svg) in the page. */
  svgs: Box[];
  /** The small charts of the Scores section, in document order. */
  smallCharts: Box[];
}

// Measured in the page: what overflows, and where each chart sits.
const LAYOUT_PROBE = `(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top + window.scrollY }; };
  return {
    scrollWidth: document.documentElement.scrollWidth,
    tables: [...document.querySelectorAll('table')].map((t) => ({ table: box(t), container: box(t.parentElement), overflowX: getComputedStyle(t.parentElement).overflowX })),
    svgs: [...document.querySelectorAll('svg')].map(box),
    smallCharts: [...document.querySelectorAll('.charts > figure')].map(box),
  };
})()`;

describe('report.html in headless Chromium (1280×900)', () => {
  let study: { root: string; cleanup: () => void };
  let scratch: string;
  let reportUrl: string;
  let page: RenderedPage;
  let narrow: RenderedPage;
  beforeAll(async () => {
    // No silent skip: without the browser this check did not run, so the suite must not pass.
    if (chromiumVersion() === null)
      throw new Error(`${CHROMIUM} is not installed: apt-get install chromium (.ci/run does), or set PREREG_CHROMIUM`);
    study = copyExampleStudy();
    scratch = mkdtempSync(join(tmpdir(), 'prereg-browser-'));
    const outputs = join(scratch, 'outputs');
    const run = await runCli(['run', '--root', study.root, '--outputs', outputs, ...KEY_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    reportUrl = pathToFileURL(join(outputs, readdirSync(outputs)[0]!, 'report.html')).href;
    page = await renderPage(reportUrl, ['#finding-summary', '#primary-chart', '#finding table'], VIEWPORT, LAYOUT_PROBE);
    narrow = await renderPage(reportUrl, ['#primary-chart'], NARROW, LAYOUT_PROBE);
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    writeFileSync(SCREENSHOT, page.png); // for people to look at; work/ is not committed
    writeFileSync(NARROW_SCREENSHOT, narrow.png);
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

  it('never scrolls sideways at 400 px: a wide table scrolls inside its own box, every chart fits', () => {
    const layout = narrow.probed as Layout;
    expect(narrow.viewport).toEqual(NARROW);
    expect(layout.scrollWidth).toBeLessThanOrEqual(NARROW.width);
    expect(layout.tables.length).toBeGreaterThan(10);
    // The hypotheses' ten columns do not fit in 400 px: the check below is not vacuous.
    expect(layout.tables.some((t) => t.table.right > NARROW.width)).toBe(true);
    for (const [i, t] of layout.tables.entries()) {
      expect(t.container.right, `table ${i}'s box`).toBeLessThanOrEqual(NARROW.width);
      if (t.table.right > t.container.right + 0.5) expect(t.overflowX, `table ${i} is wider than its box`).toMatch(/^(auto|scroll)$/);
    }
    for (const [i, svg] of layout.svgs.entries()) {
      expect(svg.left, `chart ${i}`).toBeGreaterThanOrEqual(0);
      expect(svg.right, `chart ${i}`).toBeLessThanOrEqual(NARROW.width);
    }
    expect(narrow.rects['#primary-chart']!.right).toBeLessThanOrEqual(NARROW.width);
  });

  it('aligns the small charts: in every row the second chart starts at the same x', () => {
    const charts = (page.probed as Layout).smallCharts;
    const rows = new Map<number, Box[]>();
    for (const c of charts) rows.set(Math.round(c.top), [...(rows.get(Math.round(c.top)) ?? []), c]);
    const seconds = [...rows.values()].filter((row) => row.length > 1).map((row) => row[1]!.left);
    // At 1280 px two charts of four systems fit side by side, so several rows have a second chart.
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seconds).size, `second-column x per row: ${seconds.join(', ')}`).toBe(1);
    const firsts = [...rows.values()].map((row) => row[0]!.left);
    expect(new Set(firsts).size).toBe(1);
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
