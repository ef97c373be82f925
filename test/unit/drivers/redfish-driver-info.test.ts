import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { loadRedfishConfig } from '../../../functions/drivers/redfish/config';
import { parseDriverInfo as parseWithPolicy, quotePath } from '../../../functions/drivers/redfish/driver-info';
import { type FetchPolicy, PERMISSIVE_FETCH_POLICY, fetchPolicyFromEnv } from '../../../functions/drivers/hosts';
import type { Node } from '../../../functions/objects/node';

/** Ironic's parsing, with a policy that refuses nothing (the host policy has tests of its own). */
const parseDriverInfo = (node: Node, policy: FetchPolicy = PERMISSIVE_FETCH_POLICY) => parseWithPolicy(node, policy);
import { parseCapabilities } from '../../../functions/drivers/redfish/inspect';
import { makeNode } from '../helpers/builders';

function parse(driverInfo: Record<string, unknown>) {
  const node = makeNode({ driver: 'redfish', driver_info: driverInfo });
  return { node, parse: () => parseDriverInfo(node) };
}

describe('parseDriverInfo', () => {
  it("refuses a node without redfish_address with Ironic's message", () => {
    const { node, parse: run } = parse({ redfish_username: 'u' });
    expect(run).toThrow(`Missing the following Redfish properties in node ${node.uuid} driver_info: ['redfish_address']`);
    expect(run).toThrow(expect.objectContaining({ name: 'MissingParameterValue', code: 400 }));
  });

  it('reads scheme and authority, assumes https, and takes a path as the root prefix', () => {
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: 'http://10.0.0.1:8000' } }))).toMatchObject({
      address: 'http://10.0.0.1:8000',
      rootPrefix: '/redfish/v1/',
      systemId: undefined,
      verifyCa: true,
      authType: 'auto',
    });
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: 'bmc.example.com' } })).address).toBe('https://bmc.example.com');
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: '10.0.0.1:8443' } })).address).toBe('https://10.0.0.1:8443');
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: 'fd00::1' } })).address).toBe('https://[fd00::1]');
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: 'https://bmc/custom/v1' } }))).toMatchObject({
      address: 'https://bmc',
      rootPrefix: '/custom/v1',
    });
  });

  // Each checked against Ironic 21.4's answers for the same driver_info.
  it.each([
    ['http://b mc', 'http://b mc'],
    ['http://bmc:port', 'http://bmc:port'],
    ['ht tp://bmc', 'https://ht tp://bmc'],
    [42, '42'],
  ])('refuses the address %p', (address, shown) => {
    const { node, parse: run } = parse({ redfish_address: address });
    expect(run).toThrow(`Invalid Redfish address ${shown} set in driver_info/redfish_address on node ${node.uuid}`);
  });

  it.each([['http://bmc:99999'], ['http://'], ['http://user@bmc'], ['http://bmc?x=1'], ['http://bmc/pa th']])(
    'accepts %p as Ironic does',
    (address) => {
      expect(() => parse({ redfish_address: address }).parse()).not.toThrow();
    },
  );

  it('quotes the system id as Python does, and refuses one that is not a string', () => {
    expect(
      parseDriverInfo(makeNode({ driver_info: { redfish_address: 'h', redfish_system_id: '/redfish/v1/Systems/a b' } })).systemId,
    ).toBe('/redfish/v1/Systems/a%20b');
    expect(quotePath("/x/ü!*'()~_-.")).toBe('/x/%C3%BC%21%2A%27%28%29~_-.');
    const { node, parse: run } = parse({ redfish_address: 'h', redfish_system_id: 7 });
    expect(run).toThrow(
      `Invalid value "7" set in driver_info/redfish_system_id on node ${node.uuid}. The value should be a path (string) to the resource that the driver will interact with. For example: /redfish/v1/Systems/1`,
    );
  });

  it('takes redfish_verify_ca as a boolean, a boolean string, or an existing file or folder', () => {
    const verify = (value: unknown) =>
      parseDriverInfo(makeNode({ driver_info: { redfish_address: 'h', redfish_verify_ca: value } })).verifyCa;
    expect(verify(false)).toBe(false);
    expect(verify('no')).toBe(false);
    expect(verify('True')).toBe(true);
    const bundle = join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt');
    expect(verify(bundle)).toBe(bundle);
    expect(verify(join(PROJECT_ROOT, 'test/fixtures/tls'))).toBe(join(PROJECT_ROOT, 'test/fixtures/tls'));
    for (const [bad, shown] of [
      ['/no/such/file', '/no/such/file'],
      [3, '3'],
      [null, 'None'],
    ]) {
      const { node, parse: run } = parse({ redfish_address: 'h', redfish_verify_ca: bad });
      expect(run).toThrow(
        `Invalid value type set in driver_info/redfish_verify_ca on node ${node.uuid}. The value should be a Boolean or the path to a file/directory, not "${shown}"`,
      );
    }
  });

  it('accepts the auth types Ironic knows and refuses others', () => {
    expect(parseDriverInfo(makeNode({ driver_info: { redfish_address: 'h', redfish_auth_type: 'basic' } })).authType).toBe('basic');
    for (const [bad, shown] of [
      ['digest', 'digest'],
      [null, 'None'],
    ]) {
      const { node, parse: run } = parse({ redfish_address: 'h', redfish_auth_type: bad });
      expect(run).toThrow(
        `Invalid value "${shown}" set in driver_info/redfish_auth_type on node ${node.uuid}. The value should be one of "basic", "session" or "auto".`,
      );
    }
  });

  it('reads credentials as given', () => {
    expect(
      parseDriverInfo(makeNode({ driver_info: { redfish_address: 'h', redfish_username: 'root', redfish_password: 'calvin' } })),
    ).toMatchObject({ username: 'root', password: 'calvin' });
  });
});

describe('loadRedfishConfig', () => {
  it('has bounded defaults and reads overrides in seconds', () => {
    const defaults = loadRedfishConfig({});
    // A hung BMC costs at most attempts × (connect + read) + back-off, under the 100 s step timeout.
    const worst =
      defaults.attempts * (defaults.connectTimeoutMs + defaults.readTimeoutMs) +
      defaults.retryIntervalMs * (2 ** (defaults.attempts - 1) - 1) * 2;
    expect(worst).toBeLessThan(100_000);
    expect(
      loadRedfishConfig({
        REDFISH_CONNECTION_ATTEMPTS: '5',
        REDFISH_READ_TIMEOUT: '7',
        POWER_STATE_CHANGE_TIMEOUT: '30',
        REDFISH_POWER_POLL_INTERVAL_MS: '100',
      }),
    ).toMatchObject({
      attempts: 5,
      readTimeoutMs: 7_000,
      powerStateChangeTimeoutMs: 30_000,
      powerPollIntervalMs: 100,
    });
    expect(defaults.powerPollIntervalMs).toBe(1_000);
    expect(() => loadRedfishConfig({ REDFISH_CONNECTION_ATTEMPTS: '0' })).toThrow(
      'Environment variable REDFISH_CONNECTION_ATTEMPTS must be an integer >= 1, got "0"',
    );
    expect(() => loadRedfishConfig({ REDFISH_POWER_POLL_INTERVAL_MS: '0' })).toThrow(
      'Environment variable REDFISH_POWER_POLL_INTERVAL_MS must be an integer >= 1, got "0"',
    );
  });
});

describe('parseCapabilities', () => {
  it('reads "key:value" lists and dicts', () => {
    expect([...parseCapabilities('boot_mode:uefi, secure_boot:true,x:a:b')]).toEqual([
      ['boot_mode', 'uefi'],
      ['secure_boot', 'true'],
      ['x', 'a:b'],
    ]);
    expect([...parseCapabilities({ boot_mode: 'bios' })]).toEqual([['boot_mode', 'bios']]);
    expect(parseCapabilities(undefined).size).toBe(0);
  });
});

describe('the host and CA policy', () => {
  const policy = fetchPolicyFromEnv({});

  it('refuses BMC addresses on loopback and link-local hosts by default, with what to do next', () => {
    for (const address of ['http://127.0.0.1:9001', 'https://[::1]', 'http://169.254.169.254', 'http://2130706433']) {
      const node = makeNode({ driver_info: { redfish_address: address } });
      expect(() => parseWithPolicy(node, policy)).toThrow(
        new RegExp(
          `^The URL in driver_info/redfish_address of node ${node.uuid} may not be used: the address .* is denied by the conductor's host policy\\. Ask the operator`,
        ),
      );
    }
    expect(parseWithPolicy(makeNode({ driver_info: { redfish_address: 'https://10.0.0.1' } }), policy).address).toBe('https://10.0.0.1');
  });

  it('keeps to the allowed hosts when there are some', () => {
    const only = fetchPolicyFromEnv({ BMC_ALLOWED_HOSTS: '10.1.0.0/16,.bmc.example' });
    expect(() => parseWithPolicy(makeNode({ driver_info: { redfish_address: 'https://10.2.0.1' } }), only)).toThrow(/is not allowed/);
    expect(parseWithPolicy(makeNode({ driver_info: { redfish_address: 'https://r1.bmc.example' } }), only).address).toBe(
      'https://r1.bmc.example',
    );
  });

  it('reads a CA path only under the allowed folders, and never looks at any other', () => {
    const fixture = join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt');
    const info = { redfish_address: 'https://10.0.0.1', redfish_verify_ca: fixture };
    expect(() => parseWithPolicy(makeNode({ driver_info: info }), policy)).toThrow(/is not a file or directory under the CA folders/);
    for (const path of ['/proc/self/environ', '/etc/passwd']) {
      expect(() => parseWithPolicy(makeNode({ driver_info: { ...info, redfish_verify_ca: path } }), policy)).toThrow(/none are allowed/);
    }
    const allowed = fetchPolicyFromEnv({ CA_ALLOWED_PATHS: join(PROJECT_ROOT, 'test/fixtures') });
    expect(parseWithPolicy(makeNode({ driver_info: info }), allowed).verifyCa).toBe(fixture);
    const escape = { ...info, redfish_verify_ca: join(PROJECT_ROOT, 'test/fixtures/../../package.json') };
    expect(() => parseWithPolicy(makeNode({ driver_info: escape }), allowed)).toThrow(/not a file or directory under the CA folders/);
  });
});
