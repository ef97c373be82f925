/**
 * Browser tests of the web console: Playwright driving Debian's Chromium (`/usr/bin/chromium`,
 * installed by .ci/run; no browser is downloaded) against the local stack of `stack.ts`. Each test
 * gets a new browser context, and every launch a fresh temporary profile (Playwright's own
 * user-data dir). One worker: the tests share one stack and its virtual fleet.
 */
import { defineConfig } from '@playwright/test';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './global-setup.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  // Generous: the machine is shared, and a deploy through the virtual agent takes tens of seconds.
  timeout: 240_000,
  expect: { timeout: 60_000 },
  reporter: [['list']],
  outputDir: '../../dist/ui-test-results',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS },
    viewport: { width: 1400, height: 900 },
    actionTimeout: 30_000,
    navigationTimeout: 60_000,
  },
});
