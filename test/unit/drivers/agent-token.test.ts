/**
 * The agent token rules (Ironic's add_secret_token, wipe_internal_info_on_power_off,
 * wipe_token_and_url, get_node_with_token): a token pregenerated for the virtual media ISO survives
 * a power off or reboot, one issued at lookup does not, ending a flow forgets both, and lookup
 * answers "******" while the node holds either.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import { issueToken } from '../../../functions/api/controllers/ramdisk';
import type { ApiContext } from '../../../functions/api/context';
import { changeNodePowerState } from '../../../functions/conductor/flows/power';
import {
  addSecretToken,
  isAgentTokenPregenerated,
  isAgentTokenPresent,
  wipeAgentToken,
  wipeOnPowerOff,
} from '../../../functions/drivers/agent/token';
import { kernelParams } from '../../../functions/drivers/redfish/boot-iso';
import { kernelArg } from '../../../local/fleet/agent/factory';
import { makeConductorContext, makeNode } from '../helpers/builders';
import { MemoryNodeStore } from '../helpers/memory-node-store';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const AGENT = { agent_url: 'http://192.0.2.1:9999', agent_verify_ca: 'PEM', agent_cached_clean_steps: {}, agent_cached_deploy_steps: {} };

describe('addSecretToken', () => {
  it('sets a 43-character URL-safe token, marked pregenerated only when asked', () => {
    const node = makeNode({ driver_internal_info: { agent_secret_token_pregenerated: true } });
    const token = addSecretToken(node);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(node.driver_internal_info).toEqual({ agent_secret_token: token });
    const again = addSecretToken(node, true);
    expect(again).not.toBe(token);
    expect(node.driver_internal_info).toEqual({ agent_secret_token: again, agent_secret_token_pregenerated: true });
    expect(isAgentTokenPresent(node) && isAgentTokenPregenerated(node)).toBe(true);
  });
});

describe('wipeOnPowerOff', () => {
  it('keeps a pregenerated token and drops what the agent re-sends after a boot', () => {
    const node = makeNode({
      driver_internal_info: { ...AGENT, agent_secret_token: 't', agent_secret_token_pregenerated: true, deploy_steps: [] },
    });
    expect(wipeOnPowerOff(node)).toBe(true);
    expect(node.driver_internal_info).toEqual({ agent_secret_token: 't', agent_secret_token_pregenerated: true, deploy_steps: [] });
  });

  it('drops a token issued at lookup, and changes nothing when there is nothing to drop', () => {
    const node = makeNode({ driver_internal_info: { ...AGENT, agent_secret_token: 't', agent_last_heartbeat: 'x' } });
    expect(wipeOnPowerOff(node)).toBe(true);
    expect(node.driver_internal_info).toEqual({ agent_last_heartbeat: 'x' });
    expect(wipeOnPowerOff(node)).toBe(false);
  });
});

it('wipeAgentToken forgets a pregenerated token too, as the end of a deploy or cleaning does', () => {
  const node = makeNode({ driver_internal_info: { ...AGENT, agent_secret_token: 't', agent_secret_token_pregenerated: true, x: 1 } });
  expect(wipeAgentToken(node)).toBe(true);
  expect(node.driver_internal_info).toEqual({ agent_cached_clean_steps: {}, agent_cached_deploy_steps: {}, x: 1 });
  expect(wipeAgentToken(node)).toBe(false);
});

describe('lookup (issueToken)', () => {
  const ctxWith = (nodes: MemoryNodeStore) => ({ nodes, log }) as unknown as ApiContext;

  it('answers "******" and writes nothing while a pregenerated token is there', async () => {
    const nodes = new MemoryNodeStore();
    const node = await nodes.create(
      makeNode({ driver_internal_info: { agent_secret_token: 'p'.repeat(43), agent_secret_token_pregenerated: true } }),
    );
    const save = jest.spyOn(nodes, 'save');
    expect(await issueToken(ctxWith(nodes), node)).toBe('******');
    expect(save).not.toHaveBeenCalled();
    expect((await nodes.get(node.uuid)).driver_internal_info.agent_secret_token).toBe('p'.repeat(43));
  });

  it('issues a token once, stored with a conditional write; a racing copy of the node cannot store another', async () => {
    const nodes = new MemoryNodeStore();
    const created = await nodes.create(makeNode());
    const stale = await nodes.get(created.uuid);
    const token = await issueToken(ctxWith(nodes), await nodes.get(created.uuid));
    expect((await nodes.get(created.uuid)).driver_internal_info).toEqual({ agent_secret_token: token });
    await expect(issueToken(ctxWith(nodes), stale)).rejects.toThrow();
    expect(await issueToken(ctxWith(nodes), await nodes.get(created.uuid))).toBe('******');
  });
});

describe('power actions (node_power_action)', () => {
  async function powerAction(target: string, info: Record<string, unknown>) {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ power_state: 'power on', driver_internal_info: info }));
    node.target_power_state = target === 'rebooting' ? 'power on' : 'power off';
    await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:p1', ttlSeconds: 300 } });
    await changeNodePowerState(ctx, { node_id: node.uuid, lock_token: 'rpc:p1', message_id: 'p1', target });
    return ctx.nodes.get(node.uuid);
  }

  it('keep a pregenerated token through a reboot and a power off, dropping the agent URL', async () => {
    const info = { ...AGENT, agent_secret_token: 't', agent_secret_token_pregenerated: true };
    for (const target of ['rebooting', 'power off']) {
      const node = await powerAction(target, info);
      expect(node.driver_internal_info).toEqual({ agent_secret_token: 't', agent_secret_token_pregenerated: true });
      expect(node.reservation).toBeNull();
    }
  });

  it('drop a token issued at lookup, so the rebooted agent can look up again; power on keeps it', async () => {
    expect((await powerAction('rebooting', { ...AGENT, agent_secret_token: 't' })).driver_internal_info).toEqual({});
    expect((await powerAction('power on', { ...AGENT, agent_secret_token: 't' })).driver_internal_info).toMatchObject({
      agent_secret_token: 't',
    });
  });
});

it('puts the pregenerated token on the ISO’s kernel command line, which the fleet’s firmware reads back', () => {
  const config = { kernelAppendParams: 'nofb', apiUrl: 'https://api.example' };
  const line = kernelParams(makeNode(), config, 'T'.repeat(43));
  expect(line).toBe(`nofb ipa-api-url=https://api.example ipa-agent-token=${'T'.repeat(43)} boot_method=vmedia`);
  expect(kernelArg(line, 'ipa-agent-token')).toBe('T'.repeat(43));
  expect(kernelArg(kernelParams(makeNode(), config), 'ipa-agent-token')).toBeUndefined();
});
