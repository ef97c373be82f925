/** What every browser test starts from: the stack's address, an API client, a signed-in page. */
import { type APIRequestContext, type Page, test as base, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import type { UiStackInfo } from './stack';

export function stackInfo(): UiStackInfo {
  const raw = process.env.IRONLESS_UI_STACK;
  if (!raw) throw new Error('IRONLESS_UI_STACK is not set: run the browser tests with npm run test:ui');
  return JSON.parse(raw) as UiStackInfo;
}

/** The API as the tests' own client (to prepare nodes and check what the console did). */
export class Api {
  constructor(
    private readonly request: APIRequestContext,
    readonly info: UiStackInfo,
  ) {}

  private headers() {
    return {
      Authorization: `Basic ${Buffer.from(`${this.info.user}:${this.info.password}`).toString('base64')}`,
      'X-OpenStack-Ironic-API-Version': '1.87',
    };
  }

  async call(method: string, path: string, data?: unknown): Promise<Record<string, unknown>> {
    const res = await this.request.fetch(`${this.info.url}${path}`, {
      method,
      headers: this.headers(),
      ...(data === undefined ? {} : { data }),
    });
    const text = await res.text();
    if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  async waitFor(node: string, state: string, timeoutMs = 120_000): Promise<void> {
    await expect
      .poll(async () => (await this.call('GET', `/v1/nodes/${node}?fields=provision_state`)).provision_state, { timeout: timeoutMs })
      .toBe(state);
  }

  /** Manage and provide a node (the fleet's nodes skip cleaning: automated_clean is off). */
  async makeAvailable(node: string): Promise<void> {
    await this.call('PUT', `/v1/nodes/${node}/states/provision`, { target: 'manage' });
    await this.waitFor(node, 'manageable');
    await this.call('PUT', `/v1/nodes/${node}/states/provision`, { target: 'provide' });
    await this.waitFor(node, 'available');
  }
}

/** Open the console at `hash` and sign in with the stack's http_basic credentials. */
export async function signIn(page: Page, info: UiStackInfo, hash = ''): Promise<void> {
  await page.goto(`${info.url}/ui/${hash}`);
  await page.getByLabel('User name').fill(info.user);
  await page.getByLabel('Password').fill(info.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
}

/** axe-core's serious and critical findings on the page as it is (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Where screenshots go: IRONLESS_UI_SCREENSHOTS (docs/ when refreshing them), else the test's output. */
export function screenshotPath(name: string, outputPath: (name: string) => string): string {
  const dir = process.env.IRONLESS_UI_SCREENSHOTS;
  return dir ? `${dir}/${name}` : outputPath(name);
}

export const test = base.extend<{ info: UiStackInfo; api: Api }>({
  // eslint-disable-next-line no-empty-pattern
  info: async ({}, use) => use(stackInfo()),
  api: async ({ request, info }, use) => use(new Api(request, info)),
});

export { expect };
