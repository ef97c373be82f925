/**
 * The web console in a real browser: signing in with http_basic (credentials kept in memory only),
 * counting and filtering the fleet through the API's own filters, finding nodes, accessibility
 * (axe-core) and use by keyboard alone.
 */
import { type Page } from '@playwright/test';
import { expect, seriousViolations, signIn, test } from './fixtures';

/** Press Tab until `name`'s element has the focus (a keyboard user's way there). */
async function tabTo(page: Page, target: ReturnType<Page['locator']>): Promise<void> {
  for (let i = 0; i < 80; i++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('Tab never reached the element');
}

test('serves its files openly and asks for credentials, which it keeps in memory only', async ({ page, request, info }) => {
  const files = await request.get(`${info.url}/ui/app.js`);
  expect(files.status()).toBe(200);
  expect(files.headers()['content-security-policy']).toContain("connect-src 'self'");
  expect((await request.get(`${info.url}/v1/nodes`)).status()).toBe(401);
  const moved = await request.get(`${info.url}/ui`, { maxRedirects: 0 });
  expect([moved.status(), moved.headers().location]).toEqual([301, 'ui/']);

  await page.goto(`${info.url}/ui/`);
  await expect(page.getByRole('heading', { name: 'Sign in to Ironless' })).toBeVisible();
  await page.getByLabel('User name').fill(info.user);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('The user name or password is wrong');

  await page.getByLabel('Password').fill(info.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Fleet', level: 1 })).toBeVisible();
  const stored = await page.evaluate(`(async () => ({
    local: localStorage.length,
    session: sessionStorage.length,
    cookies: document.cookie,
    databases: (await indexedDB.databases()).length,
  }))()`);
  expect(stored).toEqual({ local: 0, session: 0, cookies: '', databases: 0 });

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in to Ironless' })).toBeVisible();
});

test('counts the fleet and filters it by state with the API’s filters and paging', async ({ page, info }) => {
  await signIn(page, info);
  const counts = page.getByRole('table', { name: 'Provision state' });
  await expect(counts.getByRole('row', { name: /^available/ })).toContainText('3');
  await expect(page.getByRole('table', { name: 'Owner' }).getByRole('row', { name: /^web/ })).toContainText('3');

  const listed = page.waitForRequest((r) => r.url().includes('/v1/nodes?') && r.url().includes('provision_state=available'));
  await page.getByRole('combobox', { name: 'Provision state' }).selectOption('available');
  const url = new URL((await listed).url());
  expect(url.searchParams.get('limit')).toBe('50');
  expect(url.searchParams.get('fields')).toContain('provision_state');
  const rows = page.getByRole('table', { name: /^Nodes/ }).locator('tbody tr');
  await expect(rows).toHaveCount(3);
  for (const row of await rows.all()) await expect(row).toContainText('available');
  expect(page.url()).toContain('provision_state=available');

  // A count's row selects its filter: the two manageable nodes, one of them in maintenance.
  await counts.getByRole('button', { name: 'manageable' }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'maintenance' })).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear filters' }).click();

  // Paging with limit and marker: five per page, the next page starts after the last node shown.
  await page.evaluate("location.hash = '#/fleet?limit=5'");
  await expect(rows).toHaveCount(5);
  const lastShown = (await rows.last().getByRole('link').getAttribute('href'))?.replace('#/nodes/', '');
  const next = page.waitForRequest((r) => r.url().includes('/v1/nodes?') && r.url().includes('marker='));
  await page.getByRole('button', { name: 'Next →' }).click();
  const nextUrl = new URL((await next).url());
  expect([nextUrl.searchParams.get('marker'), nextUrl.searchParams.get('limit')]).toEqual([lastShown, '5']);
  await expect(page.getByText('Page 2 ·')).toBeVisible();
  await expect(rows.first().getByRole('link')).not.toHaveAttribute('href', `#/nodes/${lastShown}`);
  await page.getByRole('button', { name: '← Previous' }).click();
  await expect(page.getByText('Page 1 ·')).toBeVisible();
});

test('finds a node by name, by MAC address and by UUID', async ({ page, info, api }) => {
  await signIn(page, info);
  const search = page.getByRole('searchbox', { name: 'Find a node' });
  await search.fill('lab-02');
  await search.press('Enter');
  await expect(page.getByRole('heading', { name: 'lab-02', level: 1 })).toBeVisible();

  const ports = (await api.call('GET', '/v1/ports?node=redfish-2&fields=address')).ports as { address: string }[];
  await page.goto(`${info.url}/ui/#/fleet`);
  await page.getByRole('searchbox', { name: 'Find a node' }).fill((ports[0] as { address: string }).address.toUpperCase());
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('heading', { name: 'redfish-2', level: 1 })).toBeVisible();

  const uuid = String((await api.call('GET', '/v1/nodes/db-01?fields=uuid')).uuid);
  await page.goto(`${info.url}/ui/#/fleet`);
  await page.getByRole('searchbox', { name: 'Find a node' }).fill(uuid);
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('heading', { name: 'db-01', level: 1 })).toBeVisible();

  await page.goto(`${info.url}/ui/#/fleet`);
  await page.getByRole('searchbox', { name: 'Find a node' }).fill('no-such-node');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('alert')).toContainText('No node is named “no-such-node”');
});

test('has no serious accessibility violations on any view', async ({ page, info }) => {
  await page.goto(`${info.url}/ui/`);
  await expect(page.getByRole('heading', { name: 'Sign in to Ironless' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await signIn(page, info);
  const views: [string, RegExp | string][] = [
    ['#/fleet', 'Nodes'],
    ['#/nodes/web-01', 'History'],
    ['#/nodes/lab-02', 'Fields'],
    ['#/conductors', 'Conductors'],
    ['#/enroll', 'Enroll a node'],
  ];
  for (const [hash, heading] of views) {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
    await expect(page.getByText('Loading…')).toHaveCount(0);
    expect([hash, await seriousViolations(page)]).toEqual([hash, []]);
  }
  // A confirmation dialog too.
  await page.evaluate("location.hash = '#/nodes/spare-01'");
  await page.getByRole('button', { name: 'Deploy' }).click();
  await expect(page.getByRole('dialog', { name: 'Deploy spare-01?' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('is usable by keyboard alone: find a node, put it in maintenance, take it out', async ({ page, info }) => {
  await signIn(page, info);
  await tabTo(page, page.getByRole('searchbox', { name: 'Find a node' }));
  await page.keyboard.type('lab-01');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'lab-01', level: 1 })).toBeVisible();

  await tabTo(page, page.getByRole('button', { name: 'Set maintenance' }));
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Set maintenance lab-01?' });
  await expect(dialog).toBeVisible();
  await tabTo(page, dialog.getByLabel('Reason'));
  await page.keyboard.type('disk swap');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByText('maintenance: disk swap')).toBeVisible();

  // Escape closes a dialog without acting; the focus is back on the page.
  await tabTo(page, page.getByRole('button', { name: 'Unset maintenance' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(page.getByText('maintenance: disk swap')).toBeVisible();

  await tabTo(page, page.getByRole('button', { name: 'Unset maintenance' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('dialog').getByRole('button', { name: 'Unset maintenance' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Set maintenance' })).toBeVisible();
});
