/**
 * Acting on nodes from the web console: enrolling, managing and providing, deploying a redfish
 * node through its virtual agent while the steps appear in order, a failed deploy's last_error,
 * an action the API refuses, and the conductors and upgrade view.
 */
import {
  GetFunctionConfigurationCommand,
  LambdaClient,
  PublishVersionCommand,
  UpdateFunctionConfigurationCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAliasCommand,
} from '@aws-sdk/client-lambda';
import { encodeState } from '../../functions/common/upgrade-state';
import { type Page } from '@playwright/test';
import { expect, screenshotPath, test } from './fixtures';
import { signIn } from './fixtures';

const CORE_DEPLOY_STEPS = [
  'deploy.deploy',
  'deploy.write_image',
  'deploy.prepare_instance_boot',
  'deploy.tear_down_agent',
  'deploy.switch_to_tenant_network',
  'deploy.boot_instance',
];

const provisionState = (page: Page) => page.locator('.head-states dd').first();

async function confirm(page: Page, title: string, button: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await expect(dialog).toBeHidden();
}

/** The steps table as [step, status] rows. */
async function stepRows(page: Page): Promise<[string, string][]> {
  const rows = await page.locator('table.steps tbody tr').all();
  const out: [string, string][] = [];
  for (const row of rows) {
    const cells = await row.locator('td').allTextContents();
    out.push([String(cells[1]).trim(), String(cells[4]).trim()]);
  }
  return out;
}

test('enrolls a node, then manages and provides it', async ({ page, info }) => {
  await signIn(page, info, '#/enroll');
  await page.getByLabel('Name').fill('ui-enrolled-1');
  await page.getByLabel('Hardware type (driver)').selectOption('fake-hardware');
  await page.getByLabel('Key 1', { exact: true }).fill('deploy_forces_oob_reboot');
  await page.getByLabel('Value 1', { exact: true }).fill('false');
  await page.getByRole('button', { name: 'Enroll', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'ui-enrolled-1', level: 1 })).toBeVisible();
  await expect(provisionState(page)).toHaveText('enroll');

  await page.getByRole('button', { name: 'Manage', exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText('Verifies ui-enrolled-1');
  await confirm(page, 'Manage ui-enrolled-1?', 'Manage');
  await expect(provisionState(page)).toHaveText('manageable');

  await page.getByRole('button', { name: 'Provide', exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText('available for deployment');
  await confirm(page, 'Provide ui-enrolled-1?', 'Provide');
  await expect(provisionState(page)).toHaveText('available');
});

test('refuses a wrong action with the API’s own error, in words', async ({ page, info }) => {
  await signIn(page, info, '#/nodes/new-01');
  await expect(provisionState(page)).toHaveText('enroll');
  await page.getByText('More actions').click();
  await page.getByRole('button', { name: 'Provide', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Provide new-01?' });
  await expect(dialog.locator('.note.warn')).toContainText('does not take “provide” from enroll');
  await dialog.getByRole('button', { name: 'Provide', exact: true }).click();
  const refusal = dialog.getByRole('alert');
  await expect(refusal).toContainText('Provide refused: The API refused the request');
  await expect(refusal).toContainText('The requested action "provide" can not be performed on node');
  await expect(refusal).toContainText('while it is in state "enroll"');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(provisionState(page)).toHaveText('enroll');
});

test('deploys a redfish node with an image and a config drive, its steps appearing in order as they run', async ({
  page,
  info,
  api,
}, testInfo) => {
  await api.makeAvailable('redfish-0');
  await signIn(page, info, '#/nodes/redfish-0');
  await expect(provisionState(page)).toHaveText('available');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Deploy redfish-0?' });
  await expect(dialog).toContainText('writes the image below to its disk');
  await dialog.getByLabel('Image URL').fill(info.image);
  await dialog.getByLabel('Image checksum').fill(info.checksum);
  await dialog.getByLabel(/Config drive/).fill('{"meta_data": {"hostname": "web-from-console"}, "user_data": "#cloud-config\\n"}');
  await dialog.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(dialog).toBeHidden();

  // Watch the live table: each time it is read, the running step is at or after the one before.
  const seen: string[] = [];
  let heartbeatShown = false;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const state = (await provisionState(page).textContent())?.trim() ?? '';
    if (state.startsWith('active') || state.startsWith('deploy failed')) break;
    if (await page.getByRole('heading', { name: 'Deploy steps' }).isVisible()) {
      const rows = await stepRows(page);
      const running = rows.find(([, status]) => status === 'running');
      if (running && seen.at(-1) !== running[0]) seen.push(running[0]);
      expect(rows.map(([step]) => step)).toEqual(CORE_DEPLOY_STEPS);
      heartbeatShown ||= await page.getByText(/Agent: last heartbeat/).isVisible();
    }
    await page.waitForTimeout(200);
  }
  await expect(provisionState(page)).toHaveText('active');
  expect(seen.length).toBeGreaterThan(0);
  const order = seen.map((s) => CORE_DEPLOY_STEPS.indexOf(s));
  expect(order).toEqual([...order].sort((a, b) => a - b));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(heartbeatShown).toBe(true);

  // Once done, the run comes from the node's history: every step done, in order, with its start.
  await expect(page.getByRole('heading', { name: 'Last deploy run' })).toBeVisible();
  expect(await stepRows(page)).toEqual(CORE_DEPLOY_STEPS.map((s) => [s, 'done']));
  const steps = page.locator('table.steps');
  await expect(steps.getByRole('row', { name: /deploy\.write_image/ })).toContainText('in-band (agent)');
  await expect(steps.getByRole('row', { name: /deploy\.deploy / })).toContainText('out-of-band (conductor)');
  const instance = (await api.call('GET', '/v1/nodes/redfish-0?fields=instance_info')).instance_info as Record<string, unknown>;
  expect(instance.image_source).toBe(info.image);
  // The config drive was stored as given and is masked wherever the console shows instance_info.
  await expect(page.getByRole('region', { name: 'Fields' })).not.toContainText('web-from-console');
  await page.screenshot({ path: screenshotPath('console-node.png', (n) => testInfo.outputPath(n)), fullPage: true });
});

test('shows a failed deploy’s last_error, explained, and the step that failed', async ({ page, info, api, request }, testInfo) => {
  await api.makeAvailable('redfish-1');
  const fault = await request.put(`${info.bmc}/fleet/v1/machines/redfish-1/agent-faults`, { data: { failStep: 'write_image' } });
  expect(fault.ok()).toBe(true);
  await signIn(page, info, '#/nodes/redfish-1');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Deploy redfish-1?' });
  await dialog.getByLabel('Image URL').fill(info.image);
  await dialog.getByLabel('Image checksum').fill(info.checksum);
  await dialog.getByRole('button', { name: 'Deploy', exact: true }).click();
  // Ironic keeps the target (active) on a failed deploy.
  await expect(provisionState(page)).toHaveText(/^deploy failed/, { timeout: 180_000 });

  const lastError = page.locator('.last-error');
  const expected = String((await api.call('GET', '/v1/nodes/redfish-1?fields=last_error')).last_error);
  expect(expected).toContain('write_image');
  await expect(lastError.locator('p.mono')).toHaveText(expected);
  await expect(lastError.locator('.explain')).toContainText('A step failed');
  await expect(lastError.locator('.explain')).toContainText('Deploy again once the cause is fixed, or undeploy');
  await expect(page.locator('table.steps').getByRole('row', { name: /deploy\.write_image/ })).toContainText('failed');
  await expect(page.getByRole('region', { name: 'History' }).locator('li.error').first()).toContainText('write_image');
  await request.delete(`${info.bmc}/fleet/v1/machines/redfish-1/agent-faults`);

  // The fleet with this run's deploys in it, failure included.
  await page.evaluate("location.hash = '#/fleet'");
  const counts = page.getByRole('table', { name: 'Provision state' });
  await expect(counts.getByRole('row', { name: /^deploy failed/ })).toContainText('1');
  await expect(page.getByRole('table', { name: /^Nodes/ }).getByRole('row', { name: /redfish-1/ })).toContainText('write_image');
  await page.screenshot({ path: screenshotPath('console-fleet.png', (n) => testInfo.outputPath(n)), fullPage: true });
});

test('shows conductors with their versions and liveness, the upgrade, and the last hour’s deploys', async ({ page, info }) => {
  await signIn(page, info, '#/conductors');
  const conductors = page.getByRole('table', { name: 'Conductors' });
  await expect(conductors.getByRole('row', { name: /conductor:1/ })).toContainText('alive');
  await expect(conductors.getByRole('row', { name: /conductor:1/ })).toContainText('fake-hardware');
  // GET /ironless/v1/upgrade answers `idle`: no upgrade has run on this stack.
  await expect(page.getByText('No upgrade in progress.')).toBeVisible();
  // The deploys of this run (the seeded nodes, redfish-0) and redfish-1's failure, from census and history.
  await expect(page.getByRole('img', { name: /Last hour: \d+ deploys finished, [1-9]\d* failed/ })).toBeVisible();
  const label = await page.getByRole('img', { name: /Last hour/ }).getAttribute('aria-label');
  expect(Number(/(\d+) deploys finished/.exec(label ?? '')?.[1])).toBeGreaterThanOrEqual(5);
});

test('shows a rolling upgrade in progress as `ironless upgrade` leaves it: phase, releases, alias weights', async ({
  page,
  info,
}, testInfo) => {
  // What phase 4 of `ironless upgrade` leaves on the stack: a pinned conductor version taking half
  // the alias's traffic, and the upgrade's state in the conductor function's tags.
  const lambda = new LambdaClient({ endpoint: info.lambda, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
  const arn = 'arn:aws:lambda:us-east-1:000000000000:function:conductor';
  // Pinned to the running release, as phase 2 publishes it (an unchanged $LATEST would publish no new version).
  const current = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'conductor' }));
  await lambda.send(
    new UpdateFunctionConfigurationCommand({
      FunctionName: 'conductor',
      Environment: { Variables: { ...current.Environment?.Variables, PIN_RELEASE_VERSION: '2026.3' } },
    }),
  );
  const { Version } = await lambda.send(new PublishVersionCommand({ FunctionName: 'conductor', Description: 'pinned to 2026.3' }));
  const state = encodeState({
    id: '20261125T100000Z',
    from: '2026.3',
    to: 'master',
    commit: 'abcdef012345',
    phase: 4,
    done: 3,
    step: 0,
    status: 'running',
    versions: { conductor: { old: '1', pinned: Version! }, api: { old: '1' }, dbsync: { old: '1' } },
    message: 'Shift the conductor alias to the pinned version, watching',
  });
  await lambda.send(new TagResourceCommand({ Resource: arn, Tags: state }));
  await lambda.send(
    new UpdateAliasCommand({
      FunctionName: 'conductor',
      Name: 'live',
      FunctionVersion: '1',
      RoutingConfig: { AdditionalVersionWeights: { [Version!]: 0.5 } },
    }),
  );
  try {
    await signIn(page, info, '#/conductors');
    await expect(page.getByText(/Phase 4: Shift the conductor alias to the pinned version/)).toBeVisible();
    await expect(page.getByText('2026.3 → master')).toBeVisible();
    await expect(page.getByRole('img', { name: `version 1: 50 %, version ${Version}: 50 %` })).toBeVisible();
    await expect(page.getByRole('img', { name: /Last hour/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('console-conductors.png', (n) => testInfo.outputPath(n)), fullPage: true });
  } finally {
    await lambda.send(
      new UpdateAliasCommand({
        FunctionName: 'conductor',
        Name: 'live',
        FunctionVersion: '1',
        RoutingConfig: { AdditionalVersionWeights: {} },
      }),
    );
    await lambda.send(new UntagResourceCommand({ Resource: arn, TagKeys: Object.keys(state) }));
    lambda.destroy();
  }
});
