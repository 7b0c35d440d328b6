// Opens the demo's 300-message transcript RUNS times in headless Chromium and
// prints, per run and as medians: the time from navigation to the rendered
// transcript, and the page's own build-and-layout time (`data-render-ms`).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../e2e/', import.meta.url));
const { chromium } = require('playwright-core');
const [port, runs] = process.argv.slice(2).map(Number);
const executablePath = process.env.SESS_CHROMIUM || '/usr/bin/chromium';

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const loads = [];
const renders = [];
try {
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await page.goto(`http://127.0.0.1:${port}/#/s/claude%3Along`);
    await page.waitForSelector('[data-testid=session-view][data-render-ms]');
    const load = performance.now() - started;
    const render = Number(await page.getAttribute('[data-testid=session-view]', 'data-render-ms'));
    const messages = await page.locator('[data-testid=message]').count();
    if (messages !== 300) throw new Error(`expected 300 messages, the page shows ${messages}`);
    console.log(`run ${i + 1}: ${load.toFixed(0)} ms to the rendered transcript, ${render.toFixed(0)} ms build and layout`);
    loads.push(load);
    renders.push(render);
    await page.goto('about:blank');
  }
} finally {
  await browser.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`300 messages, median of ${runs}: ${median(loads).toFixed(0)} ms to the rendered transcript, ${median(renders).toFixed(0)} ms build and layout`);
