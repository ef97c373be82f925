/**
 * Which hosts the conductor may be made to reach by what users write on a node: BMC addresses
 * (`driver_info/redfish_address`), the agents' callback URLs, and the image URLs it hands to BMCs
 * and agents (`instance_info/image_source`, `driver_info/deploy_iso`, a config drive URL). Without
 * it, anyone allowed to enroll a node could point the conductor at the Lambda runtime API on
 * loopback, at link-local metadata services, or anywhere else inside the VPC.
 *
 * A policy is two lists, in the manner of Ironic's list options (`[conductor]file_url_allowed_paths`):
 * entries are host names (`bmc1.example.com`, or `.example.com` for every name under it), IP
 * addresses, or CIDR ranges. A host is refused when it matches a denied entry, or when allowed
 * entries are given and it matches none. Names are checked as written; addresses as written and,
 * for the hosts the conductor connects to itself, as resolved at connect time (so a name that
 * resolves to loopback is refused too).
 *
 * CIDR matching is node's `net.BlockList`.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { type Env, ENV, list } from '#common/config';
import { InvalidParameterValue } from '#common/errors';

export interface HostPolicy {
  /** Empty: any host not denied. */
  readonly allowed: readonly string[];
  readonly denied: readonly string[];
}

/** Loopback, "this host" and link-local ranges: refused unless a stack allows them (the local stack's virtual BMCs live on loopback). */
export const LOOPBACK_AND_LINK_LOCAL: readonly string[] = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128', '169.254.0.0/16', 'fe80::/10'];

/** Link-local only: what the local stack still refuses. */
export const LINK_LOCAL: readonly string[] = ['169.254.0.0/16', 'fe80::/10'];

export const DEFAULT_HOST_POLICY: HostPolicy = { allowed: [], denied: LOOPBACK_AND_LINK_LOCAL };

/** A policy that refuses nothing (unit tests that talk to servers on loopback). */
export const ANY_HOST: HostPolicy = { allowed: [], denied: [] };

interface CompiledList {
  readonly names: readonly string[];
  readonly addresses: BlockList;
  readonly hasAddresses: boolean;
}

/** Is this a valid policy entry? An error message naming it when not. */
export function checkHostEntry(entry: string): string | undefined {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || address === undefined || address === '') return `"${entry}" is not a host name, an IP address or a CIDR range`;
  if (prefix !== undefined) {
    const family = isIP(address);
    const bits = Number(prefix);
    if (family === 0 || !/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return `"${entry}" is not a valid CIDR range`;
    return undefined;
  }
  if (isIP(address) !== 0) return undefined;
  return /^\.?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(address)
    ? undefined
    : `"${entry}" is not a host name, an IP address or a CIDR range`;
}

function compile(entries: readonly string[]): CompiledList {
  const addresses = new BlockList();
  const names: string[] = [];
  let hasAddresses = false;
  for (const entry of entries) {
    const problem = checkHostEntry(entry);
    if (problem !== undefined) throw new Error(`Host policy: ${problem}`);
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) {
      names.push(address.toLowerCase());
      continue;
    }
    hasAddresses = true;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) addresses.addAddress(address, type);
    else addresses.addSubnet(address, Number(prefix), type);
  }
  return { names, addresses, hasAddresses };
}

/** An address as BlockList checks it: IPv4-mapped IPv6 addresses as the IPv4 address they carry. */
function normalized(address: string): { address: string; type: 'ipv4' | 'ipv6' } | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, type: 'ipv4' };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [high, low] = [parseInt(hex[1] as string, 16), parseInt(hex[2] as string, 16)];
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), type: 'ipv4' };
  }
  const family = isIP(address);
  return family === 0 ? undefined : { address, type: family === 4 ? 'ipv4' : 'ipv6' };
}

function nameMatches(names: readonly string[], host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return names.some((n) => (n.startsWith('.') ? h.endsWith(n) : h === n));
}

function addressMatches(list: CompiledList, address: string): boolean {
  const n = normalized(address);
  return n !== undefined && list.addresses.check(n.address, n.type);
}

/** A compiled policy: the checks for a host as written and for the addresses it resolves to. */
export class HostRules {
  private readonly allowed: CompiledList;
  private readonly denied: CompiledList;

  constructor(readonly policy: HostPolicy) {
    this.allowed = compile(policy.allowed);
    this.denied = compile(policy.denied);
  }

  /**
   * Why a host as written (a URL's hostname, brackets already removed) is refused; undefined when
   * it may be used. A name is only checked against names here: its addresses are checked when
   * the conductor connects (`refusedAddress`).
   */
  refusedHost(host: string): string | undefined {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (normalized(bare) !== undefined) return this.refusedAddress(bare, undefined);
    if (nameMatches(this.denied.names, bare)) return `the host ${bare} is denied`;
    const listed = this.policy.allowed.length > 0;
    if (listed && !nameMatches(this.allowed.names, bare) && !this.allowed.hasAddresses) return `the host ${bare} is not allowed`;
    return undefined;
  }

  /** Why an address the conductor is about to connect to (resolved from `name`, if any) is refused. */
  refusedAddress(address: string, name: string | undefined): string | undefined {
    const what = name === undefined || name === address ? `the address ${address}` : `the address ${address} of ${name}`;
    if (addressMatches(this.denied, address)) return `${what} is denied`;
    if (this.policy.allowed.length === 0) return undefined;
    if (name !== undefined && nameMatches(this.allowed.names, name)) return undefined;
    return addressMatches(this.allowed, address) ? undefined : `${what} is not allowed`;
  }

  /**
   * A `lookup` for `http.request` that refuses, at connect time, addresses this policy refuses:
   * the check that a name cannot get around by resolving to a denied address.
   */
  lookup(onRefused: (reason: string) => Error): LookupFunction {
    return (hostname: string, options: LookupOptions, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, found) => {
        if (err) return (callback as (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void)(err, []);
        const addresses = found as LookupAddress[];
        for (const a of addresses) {
          const reason = this.refusedAddress(a.address, hostname);
          if (reason !== undefined) return (callback as (e: Error, a: string, f: number) => void)(onRefused(reason), '', 0);
        }
        if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0];
        if (first === undefined)
          return (callback as (e: Error, a: string, f: number) => void)(onRefused(`${hostname} has no address`), '', 0);
        (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family);
      });
    };
  }
}

/**
 * Check a URL users named against a policy; InvalidParameterValue naming the field and the reason
 * when refused. `field` reads as Ironic names fields: `driver_info/redfish_address`.
 */
export function checkUrlHost(rules: HostRules, url: string, field: string, node: string): void {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return; // not a URL: the field's own validation says so
  }
  const reason = rules.refusedHost(host);
  if (reason !== undefined) {
    throw new InvalidParameterValue(
      `The URL in ${field} of node ${node} may not be used: ${reason} by the conductor's host policy. Ask the operator to allow it, or use another host.`,
    );
  }
}

/** Where the conductor may fetch from, by kind, read from the environment the stacks set from the settings. */
export interface FetchPolicy {
  /** BMC addresses and the ramdisk agents' callback URLs. */
  readonly bmc: HostRules;
  /** Image URLs handed to BMCs and agents (image_source, deploy_iso, a config drive URL). */
  readonly image: HostRules;
  /**
   * Folders under which a `redfish_verify_ca` path may name a CA file (Ironic's
   * `file_url_allowed_paths` for this kind of path): a path elsewhere (e.g. `/proc/self/environ`)
   * is refused rather than read. Empty: no path is accepted, only true or false.
   */
  readonly caPaths: readonly string[];
}

export function fetchPolicyFromEnv(env: Env = process.env): FetchPolicy {
  return {
    bmc: new HostRules({
      allowed: list(env, ENV.bmcAllowedHosts, []),
      denied: list(env, ENV.bmcDeniedHosts, DEFAULT_HOST_POLICY.denied),
    }),
    image: new HostRules({
      allowed: list(env, ENV.imageAllowedHosts, []),
      denied: list(env, ENV.imageDeniedHosts, DEFAULT_HOST_POLICY.denied),
    }),
    caPaths: list(env, ENV.caAllowedPaths, []),
  };
}

/** A policy that lets everything through (unit tests against servers on loopback). */
export const PERMISSIVE_FETCH_POLICY: FetchPolicy = { bmc: new HostRules(ANY_HOST), image: new HostRules(ANY_HOST), caPaths: ['/'] };

/** Whether a path, as written, lies under one of the folders (no file system access). */
export function underFolders(path: string, folders: readonly string[]): boolean {
  const full = resolve(path);
  return folders.some((folder) => {
    const base = resolve(folder);
    return full === base || full.startsWith(base.endsWith(sep) ? base : `${base}${sep}`);
  });
}

/**
 * Whether a CA path lies under one of the allowed folders, as written and once resolved (no `..`
 * way out, no symbolic link leading elsewhere): Ironic refuses such paths for file:// URLs alike.
 * A path outside them is never looked at.
 */
export function caPathAllowed(path: string, allowed: readonly string[]): boolean {
  if (!underFolders(path, allowed)) return false;
  try {
    return underFolders(realpathSync(resolve(path)), allowed);
  } catch {
    return false;
  }
}
