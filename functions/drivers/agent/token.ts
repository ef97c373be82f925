/**
 * The agent's one-time token on the node (Ironic's `conductor/utils.py` token helpers). A token is
 * issued at lookup, or — when the boot interface can hand the ramdisk its configuration, as the
 * redfish virtual media ISO Ironless builds does — generated before the boot and put on the ISO's
 * kernel command line (`ipa-agent-token`), marked `agent_secret_token_pregenerated`. A pregenerated
 * token survives a power off or reboot (the ISO still carries it, and lookup answers "******" to an
 * agent that asks again); one issued at lookup does not, so a rebooted agent can look up anew.
 * Ending a deploy, cleaning, servicing or inspection forgets either kind (`wipeAgentToken`).
 */
import { randomBytes } from 'node:crypto';
import type { Node } from '#objects/node';

export const TOKEN_KEY = 'agent_secret_token';
export const PREGENERATED_KEY = 'agent_secret_token_pregenerated';

/** What a power off or reboot makes stale (Ironic's wipe_internal_info_on_power_off), besides the token. */
const STALE_ON_POWER_OFF = [
  'agent_url',
  'agent_cached_deploy_steps',
  'agent_cached_clean_steps',
  'agent_verify_ca',
  'agent_start_attempted',
];

/** Set a new token on the node and return it (Ironic's add_secret_token: 32 random bytes, URL-safe base64). */
export function addSecretToken(node: Node, pregenerated = false): string {
  const token = randomBytes(32).toString('base64url');
  const info: Record<string, unknown> = { ...node.driver_internal_info, [TOKEN_KEY]: token };
  if (pregenerated) info[PREGENERATED_KEY] = true;
  else delete info[PREGENERATED_KEY];
  node.driver_internal_info = info;
  return token;
}

/** Whether the node holds a token (issued or pregenerated): lookup then answers "******". */
export function isAgentTokenPresent(node: Node): boolean {
  const token = node.driver_internal_info[TOKEN_KEY];
  return token !== undefined && token !== null;
}

/** Whether the node's token was generated for the boot media rather than issued at lookup. */
export function isAgentTokenPregenerated(node: Node): boolean {
  return node.driver_internal_info[PREGENERATED_KEY] === true;
}

/**
 * Forget what does not survive a power off or reboot (Ironic's wipe_internal_info_on_power_off): the
 * agent's URL (DHCP may give it another address), its cached steps and certificate, and its token
 * unless pregenerated. Returns whether anything changed, so a caller writes only when needed.
 */
export function wipeOnPowerOff(node: Node): boolean {
  const info = { ...node.driver_internal_info };
  const keys = isAgentTokenPregenerated(node) ? STALE_ON_POWER_OFF : [...STALE_ON_POWER_OFF, TOKEN_KEY];
  const present = keys.filter((key) => key in info);
  if (present.length === 0) return false;
  for (const key of present) delete info[key];
  node.driver_internal_info = info;
  return true;
}

/**
 * Forget the agent: a new ramdisk boot gets a new token, from its boot media or at lookup (Ironic's
 * wipe_token_and_url, which drops a pregenerated token too); whether the node had a token.
 */
export function wipeAgentToken(node: Node): boolean {
  const info = { ...node.driver_internal_info };
  const hadToken = typeof info[TOKEN_KEY] === 'string';
  for (const key of ['agent_url', TOKEN_KEY, PREGENERATED_KEY, 'agent_last_heartbeat', 'agent_verify_ca']) {
    delete info[key];
  }
  node.driver_internal_info = info;
  return hadToken;
}
