/**
 * The inspection rule engine and its actions (Ironic's inspection_rules engine and actions): order
 * by priority, conditions gating actions, every action on the node, its ports and the plugin data,
 * loops, masked secrets, and how failures are reported (Ironic's messages).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { jest } from '@jest/globals';
import type { AddressInfo, Socket } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { HardwareInspectionFailure, PortNotFound } from '../../../functions/common/errors';
import { InspectionRuleFailed, RuleActionExecutionFailure } from '../../../functions/common/inspection-rules/errors';
import { applyRules, type RuleTask } from '../../../functions/conductor/inspection-rules/engine';
import { selectProxy } from '../../../functions/conductor/inspection-rules/actions';
import type { InspectionRuleData } from '../../../functions/objects/inspection-rule';
import { Port } from '../../../functions/objects/port';
import { makeNode } from '../helpers/builders';
import { makeRule } from '../helpers/inspection-rules';

const PORT_UUID = '11111111-2222-4333-8444-555555555555';
const inventory = { cpu: { count: 8, architecture: 'x86_64' }, memory: { physical_mb: 16384 }, bmc_password: 'hunter2' };

function setup(nodeOverrides: Parameters<typeof makeNode>[0] = {}) {
  const node = makeNode({ properties: { cpus: 1, capabilities: 'boot_mode:uefi' }, extra: { seen: ['a'] }, ...nodeOverrides });
  const port = new Port({
    uuid: PORT_UUID,
    node_uuid: node.uuid,
    address: '52:54:00:00:00:01',
    extra: {},
    created_at: '2026-11-27T00:00:00Z',
  });
  const saved: Port[] = [];
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  const task: RuleTask = { node, log, ports: async () => [port], savePort: async (p) => void saved.push(p) };
  return { node, port, saved, task, log };
}

const run = (task: RuleTask, rules: Partial<InspectionRuleData>[], pluginData: Record<string, unknown> = {}) =>
  applyRules(
    task,
    rules.map((r) => makeRule(r)),
    inventory,
    pluginData,
  );
const actions = (...list: { op: string; args: unknown; loop?: unknown }[]) => ({ actions: list });

describe('applyRules', () => {
  it('runs rules highest priority first, creation order among equals, only those whose conditions hold', async () => {
    const { node, task } = setup();
    const extend = (value: string) => ({ op: 'extend-attribute', args: { path: 'extra.order', value } });
    await run(task, [
      { priority: 10, ...actions(extend('ten')) },
      { priority: 50, ...actions(extend('fifty')) },
      { priority: 10, ...actions(extend('ten-again')) },
      { priority: 99, conditions: [{ op: 'gt', args: { values: [1, 2] } }], ...actions(extend('never')) },
      {
        priority: 0,
        conditions: [{ op: 'eq', args: { values: ['{inventory[cpu][architecture]}', 'x86_64'] } }],
        ...actions(extend('x86')),
      },
    ]);
    expect(node.extra.order).toEqual(['fifty', 'ten', 'ten-again', 'x86']);
  });

  it('shows secrets in the inspection data masked to conditions and arguments', async () => {
    const { node, task } = setup();
    await run(task, [
      {
        conditions: [{ op: 'eq', args: { values: ['{inventory[bmc_password]}', '***'] } }],
        ...actions({ op: 'set-attribute', args: { path: '/extra/pw', value: '{inventory[bmc_password]}' } }),
      },
    ]);
    expect(node.extra.pw).toBe('***');
  });

  it('wraps an error Ironic does not raise itself, naming the rule and the node', async () => {
    const { node, task } = setup();
    const rule = makeRule({ conditions: [{ op: 'lt', args: { values: ['a', 1] } }] });
    await expect(applyRules(task, [rule], inventory, {})).rejects.toThrow(
      new InspectionRuleFailed(
        `Failed to apply rule ${rule.uuid} to node ${node.uuid}: '<' not supported between instances of 'str' and 'int'`,
      ),
    );
  });

  it('fail stops the inspection with its message; a later rule does not run', async () => {
    const { node, task } = setup();
    await expect(
      run(task, [
        { priority: 5, ...actions({ op: 'fail', args: { msg: 'no GPU' } }) },
        actions({ op: 'add-trait', args: { name: 'CUSTOM_LATE' } }),
      ]),
    ).rejects.toThrow(new HardwareInspectionFailure('no GPU'));
    expect(node.traits).toEqual([]);
  });

  it('runs a looped action once per item with {item} in every argument', async () => {
    const { node, task } = setup();
    await run(task, [
      actions({
        op: 'set-attribute',
        args: { path: '{item[path]}', value: '{item[value]}' },
        loop: [
          { path: '/properties/cpu_arch', value: '{inventory[cpu][architecture]}' },
          { path: 'properties.memory_mb', value: '{inventory[memory][physical_mb]}' },
        ],
      }),
      actions({ op: 'add-trait', args: { name: 'CUSTOM_{item}' }, loop: ['A', 'B'] }),
    ]);
    expect(node.properties).toMatchObject({ cpu_arch: 'x86_64', memory_mb: '16384' });
    expect(node.traits).toEqual(['CUSTOM_A', 'CUSTOM_B']);
  });
});

describe('node actions', () => {
  it('set-attribute sets a field (coerced to its type) or a nested key; refuses protected and unknown fields', async () => {
    const { node, task } = setup();
    await run(task, [
      actions(
        { op: 'set-attribute', args: { path: '/properties/cpus', value: '{inventory[cpu][count]}' } },
        { op: 'set-attribute', args: { path: 'driver_info.deploy.kernel', value: 'k' } },
        { op: 'set-attribute', args: { path: '/resource_class', value: 42 } },
        { op: 'set-attribute', args: { path: 'maintenance', value: 'yes' } },
      ),
    ]);
    expect([node.properties.cpus, node.driver_info.deploy, node.resource_class, node.maintenance]).toEqual([
      '8',
      { kernel: 'k' },
      '42',
      true,
    ]);
    await expect(run(task, [actions({ op: 'set-attribute', args: { path: '/provision_state', value: 'active' } })])).rejects.toThrow(
      'Inspection rule action execution failed. Reason: Failed to set attribute /provision_state with value active: Node field provision_state cannot be changed by an inspection rule',
    );
    await expect(run(task, [actions({ op: 'set-attribute', args: { path: '/nope', value: 1 } })])).rejects.toThrow(
      "Failed to set attribute /nope with value 1: 'Node' object has no attribute 'nope'",
    );
    expect(node.provision_state).not.toBe('active');
  });

  it('extend-attribute appends (unique skips a value present); a non-list fails', async () => {
    const { node, task } = setup();
    await run(task, [
      actions(
        { op: 'extend-attribute', args: { path: '/extra/seen', value: 'a', unique: true } },
        { op: 'extend-attribute', args: { path: '/extra/seen', value: 'b' } },
        { op: 'extend-attribute', args: { path: '/traits', value: 'CUSTOM_T' } },
      ),
    ]);
    expect([node.extra.seen, node.traits]).toEqual([['a', 'b'], ['CUSTOM_T']]);
    await expect(run(task, [actions({ op: 'extend-attribute', args: { path: '/properties/cpus', value: 1 } })])).rejects.toThrow(
      new RuleActionExecutionFailure(
        'Failed to extend attribute /properties/cpus: Inspection rule action execution failed. Reason: Cannot extend non-list attribute /properties/cpus with value 1',
      ),
    );
  });

  it('del-attribute removes a nested key or resets a field; a missing key fails', async () => {
    const { node, task } = setup({ resource_class: 'gold' });
    await run(task, [
      actions({ op: 'del-attribute', args: { path: '/extra/seen' } }, { op: 'del-attribute', args: { path: 'resource_class' } }),
    ]);
    expect([node.extra, node.resource_class]).toEqual([{}, null]);
    await expect(run(task, [actions({ op: 'del-attribute', args: { path: '/extra/gone' } })])).rejects.toThrow(
      "Failed to delete attribute at /extra/gone: 'gone'",
    );
  });

  it('set-capability appends to the capabilities string, unset-capability removes every entry of a name', async () => {
    const { node, task } = setup();
    await run(task, [
      actions({ op: 'set-capability', args: { name: 'gpu', value: 'yes' } }, { op: 'set-capability', args: { name: 'gpu', value: 'no' } }),
    ]);
    expect(node.properties.capabilities).toBe('boot_mode:uefi,gpu:yes,gpu:no');
    await run(task, [actions({ op: 'unset-capability', args: { name: 'gpu' } })]);
    expect(node.properties.capabilities).toBe('boot_mode:uefi');
  });

  it('add-trait adds once and stops at 50 traits; remove-trait of a missing trait only warns', async () => {
    const { node, task, log } = setup({ traits: ['CUSTOM_OLD'] });
    const warn = jest.spyOn(log, 'warn');
    await run(task, [
      actions({ op: 'add-trait', args: { name: 'CUSTOM_NEW' } }, { op: 'add-trait', args: { name: 'CUSTOM_NEW' } }),
      actions({ op: 'remove-trait', args: { name: 'CUSTOM_OLD' } }, { op: 'remove-trait', args: { name: 'CUSTOM_NONE' } }),
    ]);
    expect(node.traits).toEqual(['CUSTOM_NEW']);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Failed to remove trait CUSTOM_NONE'), expect.anything());
    node.traits = Array.from({ length: 50 }, (_, i) => `CUSTOM_${i}`);
    await expect(run(task, [actions({ op: 'add-trait', args: { name: 'CUSTOM_X' } })])).rejects.toThrow(
      `Failed to add new trait CUSTOM_X: Could not modify traits for node ${node.uuid} as it would exceed the maximum number of traits per node (51 vs. 50)`,
    );
  });

  it('log accepts Ironic levels only', async () => {
    const { task, log } = setup();
    const info = jest.spyOn(log, 'info');
    await run(task, [actions({ op: 'log', args: { msg: 'CPUs: {inventory[cpu][count]}' } })]);
    expect(info).toHaveBeenCalledWith('CPUs: 8', expect.anything());
    await expect(run(task, [actions({ op: 'log', args: { msg: 'x', level: 'loud' } })])).rejects.toThrow('Invalid log level: loud');
  });
});

describe('plugin data and port actions', () => {
  it('set-, extend- and unset-plugin-data change the plugin data that is stored', async () => {
    const { task } = setup();
    const pluginData: Record<string, unknown> = { keep: 1, drop: { only: true } };
    await run(
      task,
      [
        actions(
          { op: 'set-plugin-data', args: { path: 'found.cpu', value: '{inventory[cpu][architecture]}' } },
          { op: 'extend-plugin-data', args: { path: 'found.tags', value: 'a' } },
          { op: 'extend-plugin-data', args: { path: 'found.tags', value: 'a', unique: true } },
          { op: 'unset-plugin-data', args: { path: 'drop.only' } },
          { op: 'set-attribute', args: { path: '/extra/cpu', value: '{plugin_data[found][cpu]}' } },
        ),
      ],
      pluginData,
    );
    expect(pluginData).toEqual({ keep: 1, found: { cpu: 'x86_64', tags: ['a'] } });
    expect(task.node.extra.cpu).toBe('x86_64');
  });

  it('set-, extend- and del-port-attribute change and save one of the node’s ports; another port is not found', async () => {
    const { port, saved, task } = setup();
    await run(task, [
      actions(
        { op: 'set-port-attribute', args: { port_id: PORT_UUID, path: '/physical_network', value: 'physnet1' } },
        { op: 'set-port-attribute', args: { port_id: PORT_UUID, path: 'extra.switch', value: 'sw1' } },
        { op: 'extend-port-attribute', args: { port_id: PORT_UUID, path: 'extra.vlans', value: 10 } },
        { op: 'del-port-attribute', args: { port_id: PORT_UUID, path: 'extra.switch' } },
      ),
    ]);
    expect([port.physical_network, port.extra]).toEqual(['physnet1', { vlans: [10] }]);
    expect(saved).toHaveLength(4);
    await expect(run(task, [actions({ op: 'del-port-attribute', args: { port_id: 'other', path: 'extra' } })])).rejects.toThrow(
      new PortNotFound('other'),
    );
  });
});

describe('api-call', () => {
  let server: Server;
  let url: string;
  const hits: string[] = [];
  let failures = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.url} ${String(req.headers['x-rule'] ?? '')}`);
      if (req.url?.startsWith('/flaky') && failures-- > 0) res.writeHead(503, 'Service Unavailable').end();
      else if (req.url?.startsWith('/missing')) res.writeHead(404, 'Not Found').end();
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('GETs the interpolated URL with the headers given, retrying 5xx answers', async () => {
    const { node, task } = setup();
    failures = 2;
    await run(task, [
      actions({ op: 'api-call', args: { url: `${url}/flaky?node={node.uuid}`, headers: { 'x-rule': 'yes' }, backoff_factor: 0.01 } }),
    ]);
    expect(hits.slice(-3)).toEqual(Array(3).fill(`/flaky?node=${node.uuid} yes`));
  });

  it('fails on an error answer, and refuses a timeout that is not positive', async () => {
    const { task } = setup();
    await expect(run(task, [actions({ op: 'api-call', args: { url: `${url}/missing` } })])).rejects.toThrow(
      `Inspection rule action execution failed. Reason: Request to ${url}/missing failed: 404 Client Error: Not Found for url: ${url}/missing`,
    );
    await expect(run(task, [actions({ op: 'api-call', args: { url, timeout: 0 } })])).rejects.toThrow(
      'Invalid parameter: timeout must be greater than zero',
    );
  });
});

describe('api-call through a proxy', () => {
  let proxy: Server;
  let proxyAddress: string;
  const seen: string[] = [];

  beforeAll(async () => {
    // A forward proxy: an http URL arrives in absolute form; an https one asks for a tunnel.
    proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${String(req.headers['x-rule'] ?? '')}`);
      res.writeHead(200).end('proxied');
    });
    proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
      seen.push(`CONNECT ${req.url}`);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyAddress = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('sends the GET to the proxy requests would choose (scheme://host, scheme, all://host, all)', async () => {
    const { task } = setup();
    const target = 'http://hooks.ironless.invalid/rule';
    const call = (proxies: unknown) => run(task, [actions({ op: 'api-call', args: { url: target, headers: { 'x-rule': 'p' }, proxies } })]);
    await call({ http: `http://${proxyAddress}` });
    await call({ 'all://hooks.ironless.invalid': proxyAddress, https: 'http://127.0.0.1:9' });
    expect(seen.slice(-2)).toEqual(Array(2).fill(`GET ${target} p`));
  });

  it('tunnels an https URL through the proxy (CONNECT), and fails when the proxy refuses it', async () => {
    const { task } = setup();
    const target = 'https://hooks.ironless.invalid/rule';
    await expect(
      run(task, [actions({ op: 'api-call', args: { url: target, proxies: { https: `http://${proxyAddress}` }, retries: 0 } })]),
    ).rejects.toThrow(`Request to ${target} failed:`);
    expect(seen.at(-1)).toBe('CONNECT hooks.ironless.invalid:443');
  });

  it('ignores an empty proxies dict and refuses one that is no dict or names an unsupported scheme', () => {
    expect(selectProxy('http://h/x', { https: 'http://p:1' })).toBeUndefined();
    expect(selectProxy('http://h/x', { http: 'p:3128' })).toBe('http://p:3128');
    expect(() => selectProxy('http://h/x', ['p'])).toThrow("Invalid parameter: proxies must be a dictionary, not ['p']");
    const { task } = setup();
    return expect(
      run(task, [actions({ op: 'api-call', args: { url: 'http://h/x', proxies: { http: 'socks5://p:1080' } } })]),
    ).rejects.toThrow('proxy scheme socks5 is not supported (http or https)');
  });
});
