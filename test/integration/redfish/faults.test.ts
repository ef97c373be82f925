/**
 * Every fault a BMC can show ends in a clear error, in bounded time: a BMC that is down (connection
 * dropped, hung, or nothing listening), slow, failing with 500s, or refusing the credentials, and
 * TLS certificates verified as `redfish_verify_ca` says. With TEST_CONFIG (2 attempts, 1 s
 * deadlines) the worst case is about 2 s; the bounds below leave room for a loaded machine.
 */
import { mkdtempSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { Fleet } from '../../../local/fleet/fleet';
import { failure, fleetForFile, redfish, redfishNode, taskFor } from './helpers';

const BOUND_MS = 8_000;

const files = fleetForFile('f');
const setup = files.setup;

function connectionFailure(uuid: string, machineId: string, detail: string): RegExp {
  const url = `${files.fleet().url}/redfish/v1/Systems/${machineId}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`^Redfish connection failed for node ${uuid}: Unable to connect to ${url}\\. Error: ${detail}`);
}

describe('a BMC that is down', () => {
  it('drops connections: a connection error naming the BMC, after the retries', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ down: 'reset' });
    const { error, ms } = await failure(() => redfish.power.getPowerState(task));
    expect(error.name).toBe('RedfishConnectionError');
    expect(error.message).toMatch(connectionFailure(node.uuid, machine.id, '(read ECONNRESET|socket hang up)'));
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('hangs: the read deadline ends each try, and the call fails instead of hanging', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ down: 'hang' });
    const { error, ms } = await failure(() => redfish.power.getPowerState(task));
    expect(error.message).toMatch(connectionFailure(node.uuid, machine.id, 'timed out after 1 s waiting for the BMC to answer'));
    // Two tries of one second each.
    expect(ms).toBeGreaterThanOrEqual(2_000);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('is not there at all: connection refused', async () => {
    const gone = await new Fleet({ count: 1, prefix: 'gone' }).start();
    const node = redfishNode(gone, gone.machine('gone-0'));
    await gone.stop();
    const { error, ms } = await failure(() => redfish.management.getBootDevice(taskFor(node)));
    expect(error.message).toMatch(
      /^Redfish connection failed for node .*: Unable to connect to http:\/\/127\.0\.0\.1:\d+\/redfish\/v1\/Systems\/gone-0\. Error: connect ECONNREFUSED/,
    );
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('a slow BMC', () => {
  it('is waited for within the read deadline', async () => {
    const { machine, task } = setup();
    machine.setFaults({ slowMs: 200 });
    expect(await redfish.power.getPowerState(task)).toBe('power off');
  });

  it('fails with a timeout beyond it', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ slowMs: 1_500 });
    const { error, ms } = await failure(() => redfish.inspect.inspectHardware(task));
    expect(error.message).toMatch(connectionFailure(node.uuid, machine.id, 'timed out after 1 s'));
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('a BMC answering 500', () => {
  it('is retried when the error passes', async () => {
    const { machine, task } = setup();
    machine.setFaults({ errorCount: 1 });
    await redfish.power.setPowerState(task, 'power on');
    expect(machine.powerState).toBe('On');
    expect(machine.faults.errorCount).toBe(0);
  });

  it('fails reads with the status and the BMC message when it does not pass', async () => {
    const { machine, task } = setup();
    machine.setFaults({ errorStatus: 500 });
    const { error, ms } = await failure(() => redfish.power.getPowerState(task));
    expect(error.name).toBe('RedfishError');
    expect(error.message).toBe(
      `Redfish exception occurred. Error: HTTP GET ${files.fleet().url}/redfish/v1/Systems/${machine.id} returned code 500. ` +
        'Base.1.8.GeneralError: The request failed due to an internal service error (injected). ' +
        "Extended information: [{'MessageId': 'Base.1.8.InternalError', 'Message': 'The request failed due to an internal service error (injected).', 'Severity': 'Critical', 'Resolution': 'None.'}]",
    );
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("fails actions with Ironic's message for the action", async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ errorStatus: 503, errorMethods: ['POST'] });
    const { error } = await failure(() => redfish.power.setPowerState(task, 'power on'));
    expect(error.message).toMatch(
      new RegExp(
        `^Redfish exception occurred\\. Error: Setting power state to power on failed for node ${node.uuid}\\. Error: HTTP POST .*/Actions/ComputerSystem\\.Reset returned code 503\\.`,
      ),
    );
    const nmi = await failure(() => redfish.management.injectNmi(task));
    expect(nmi.error.message).toMatch(
      new RegExp(`^Redfish exception occurred\\. Error: Redfish inject NMI failed for node ${node.uuid}\\. Error: HTTP POST`),
    );
    machine.setFaults({ errorStatus: 500, errorMethods: ['PATCH'] });
    const boot = await failure(() => redfish.management.setBootDevice(task, 'pxe'));
    expect(boot.error.message).toMatch(
      new RegExp(`^Redfish exception occurred\\. Error: Redfish set boot device failed for node ${node.uuid}\\. Error: HTTP PATCH`),
    );
    expect(machine.powerState).toBe('Off');
  });
});

describe('credentials', () => {
  it('that the BMC rejects end in a 401 error at once, without retries', async () => {
    const { machine, task } = setup();
    machine.setFaults({ unauthorized: true });
    const { error, ms } = await failure(() => redfish.power.getPowerState(task));
    expect(error.message).toBe(
      `Redfish exception occurred. Error: HTTP GET ${files.fleet().url}/redfish/v1/Systems/${machine.id} returned code 401. ` +
        `Base.1.8.GeneralError: The credentials given for /redfish/v1/Systems/${machine.id} are not valid. ` +
        `Extended information: [{'MessageId': 'Base.1.8.NoValidSession', 'Message': 'The credentials given for /redfish/v1/Systems/${machine.id} are not valid.', 'Severity': 'Critical', 'Resolution': 'None.'}]`,
    );
    expect(ms).toBeLessThan(1_000);
  });

  it('that are wrong in driver_info are refused the same way', async () => {
    const { machine, node, task } = setup();
    node.driver_info = { ...node.driver_info, redfish_password: 'not-it' };
    const { error } = await failure(() => redfish.power.getPowerState(task));
    expect(error.message).toContain(`/redfish/v1/Systems/${machine.id} returned code 401.`);
    // Another machine's credentials do not open this one.
    node.driver_info = { ...node.driver_info, redfish_password: files.fleet().add().spec.password };
    await expect(redfish.power.getPowerState(task)).rejects.toThrow('returned code 401');
  });

  it('that name a system the BMC does not have: not found', async () => {
    const { node, task } = setup();
    node.driver_info = { ...node.driver_info, redfish_system_id: '/redfish/v1/Systems/nope' };
    const { error } = await failure(() => redfish.power.getPowerState(task));
    expect(error.message).toBe(`Redfish exception occurred. Error: Resource ${files.fleet().url}/redfish/v1/Systems/nope not found`);
  });
});

describe('the control API', () => {
  it('sets, shows and clears faults over HTTP', async () => {
    const { machine, task } = setup();
    const control = `${files.fleet().url}/fleet/v1/machines/${machine.id}`;
    const put = await fetch(`${control}/faults`, { method: 'PUT', body: JSON.stringify({ errorStatus: 500, errorCount: 5 }) });
    expect([put.status, await put.json()]).toEqual([200, { errorStatus: 500, errorCount: 5 }]);
    await expect(redfish.power.getPowerState(task)).rejects.toThrow('returned code 500');

    const shown = (await (await fetch(control)).json()) as { faults: unknown; redfish_system_id: string; nics: unknown[] };
    expect(shown).toMatchObject({ faults: { errorStatus: 500, errorCount: 3 }, redfish_system_id: `/redfish/v1/Systems/${machine.id}` });
    expect(shown.nics).toHaveLength(2);
    const listed = (await (await fetch(`${files.fleet().url}/fleet/v1/machines`)).json()) as { machines: { id: string }[] };
    expect(listed.machines.map((m) => m.id)).toContain(machine.id);

    const bad = await fetch(`${control}/faults`, { method: 'PUT', body: JSON.stringify({ down: 'maybe' }) });
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'down must be "reset" or "hang"' }]);
    expect((await fetch(`${control}/faults`, { method: 'DELETE' })).status).toBe(204);
    expect(await redfish.power.getPowerState(task)).toBe('power off');
  });
});

describe('TLS and redfish_verify_ca', () => {
  const fixtures = join(PROJECT_ROOT, 'test/fixtures/tls');
  let secure: Fleet;
  let caDir: string;

  beforeAll(async () => {
    secure = await new Fleet({
      count: 1,
      prefix: 'tls',
      tls: { key: readFileSync(join(fixtures, 'bmc.key')), cert: readFileSync(join(fixtures, 'bmc.crt')) },
    }).start();
    caDir = mkdtempSync(join(tmpdir(), 'ironless-ca-'));
    copyFileSync(join(fixtures, 'bmc.crt'), join(caDir, 'bmc.pem'));
  });

  afterAll(async () => {
    await secure?.stop();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  function tlsTask(verifyCa: unknown) {
    const node = redfishNode(secure, secure.machine('tls-0'));
    node.driver_info = { ...node.driver_info, redfish_verify_ca: verifyCa };
    return taskFor(node);
  }

  it('verifies the certificate by default, and refuses one it cannot verify without retrying', async () => {
    const { error, ms } = await failure(() => redfish.power.getPowerState(tlsTask(true)));
    expect(secure.url).toMatch(/^https:/);
    expect(error.message).toMatch(/Unable to connect to https:.*\. Error: self[- ]signed certificate/);
    expect(ms).toBeLessThan(1_000);
  });

  it('trusts a CA bundle file or a folder of CAs, or skips verification when told to', async () => {
    expect(await redfish.power.getPowerState(tlsTask(join(fixtures, 'bmc.crt')))).toBe('power off');
    expect(await redfish.power.getPowerState(tlsTask(caDir))).toBe('power off');
    expect(await redfish.power.getPowerState(tlsTask(false))).toBe('power off');
    expect(await redfish.power.getPowerState(tlsTask('False'))).toBe('power off');
  });
});
