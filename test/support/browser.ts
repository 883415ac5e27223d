/**
 * A real headless Chromium for the browser tests: Debian's `chromium` package driven by
 * playwright-core, which cannot download a browser of its own here (`.ci/run` installs the package
 * when it is missing; on a developer machine: `sudo apt-get install -y chromium`). CHROMIUM_PATH
 * points at another binary.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type LaunchOptions, type Locator, type Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? CANDIDATES.find((candidate) => existsSync(candidate));
  if (!path || !existsSync(path))
    throw new Error(
      'No Chromium for the browser tests: install it (`sudo apt-get install -y chromium`) or set CHROMIUM_PATH',
    );
  return path;
}

/**
 * Launches Chromium headless. `fakeMicrophoneWav` plays that WAV file as the microphone (Chromium's
 * fake capture device) and grants it without a prompt.
 */
export async function launchChromium(options: { fakeMicrophoneWav?: string } & LaunchOptions = {}): Promise<Browser> {
  const { fakeMicrophoneWav, args = [], ...rest } = options;
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    ...rest,
    args: [
      // The sandbox needs user namespaces, which CI's root container may not allow.
      '--no-sandbox',
      // Loopback only: no background traffic to Google's services.
      '--disable-background-networking',
      '--disable-component-update',
      '--no-default-browser-check',
      ...(fakeMicrophoneWav
        ? [
            '--use-fake-ui-for-media-stream',
            '--use-fake-device-for-media-stream',
            `--use-file-for-fake-audio-capture=${fakeMicrophoneWav}`,
            '--autoplay-policy=no-user-gesture-required',
          ]
        : []),
      ...args,
    ],
  });
}

/**
 * A screenshot of a console page, written only when CONSOLE_SCREENSHOTS_DIR names a folder (the
 * README's pictures: `CONSOLE_SCREENSHOTS_DIR=docs/screenshots npm run test:integration`; any other
 * folder to look at them): a full page's PNG is about half a second of CPU, and `npm test` on CI is
 * bound by CPU. The viewport is set either way, so a test runs the same with and without. The
 * whole page, or only `part`.
 */
export async function saveScreenshot(page: Page, name: string, part?: Locator): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  const folder = process.env.CONSOLE_SCREENSHOTS_DIR;
  if (!folder) return;
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${name}.png`);
  await (part ? part.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
}

/**
 * The page's requests in flight, counted from now: `settled()` waits until none has been for
 * `quietMs`. Playwright's 'networkidle' fires once per document, and the console's pages are hash
 * routes of one, so after the first page it no longer waits.
 */
export function requestsOf(page: Page) {
  let inFlight = 0;
  let lastChange = Date.now();
  const change = (by: number) => {
    inFlight = Math.max(0, inFlight + by);
    lastChange = Date.now();
  };
  page.on('request', () => change(1));
  page.on('requestfinished', () => change(-1));
  page.on('requestfailed', () => change(-1));
  return {
    async settled(quietMs = 300, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 || Date.now() - lastChange < quietMs) {
        if (Date.now() > deadline) throw new Error(`${inFlight} requests still in flight after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * What axe-core finds against WCAG 2 A and AA on the page as it is (labels, names, contrast,
 * landmarks), as `rule: element, …` lines. Evaluated by the DevTools protocol, which the page's
 * Content-Security-Policy does not apply to.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run: (options: unknown) => Promise<AxeResults> } };
    const results = await axe.run({ runOnly: ['wcag2a', 'wcag2aa'] });
    return results.violations.map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  });
}

interface AxeResults {
  violations: { id: string; nodes: { target: string[] }[] }[];
}
