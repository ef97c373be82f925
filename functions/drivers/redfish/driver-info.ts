/**
 * The node's `driver_info` for Redfish, checked the way Ironic's `redfish/utils.py`
 * `parse_driver_info` does, with its parameter names and its error messages.
 */
import { statSync } from 'node:fs';
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import { boolFromString } from '#common/strutils';
import type { Node } from '#objects/node';
import { type FetchPolicy, caPathAllowed, checkUrlHost, underFolders } from '../hosts';

/** What the driver needs to reach a node's BMC. */
export interface RedfishDriverInfo {
  /** `scheme://authority` of the BMC. */
  readonly address: string;
  /** Path of the service root, from the address's path (default `/redfish/v1/`). */
  readonly rootPrefix: string;
  /** Path of the ComputerSystem, URL-quoted; undefined = the only system the BMC has. */
  readonly systemId: string | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** true: verify against the system's CAs; false: do not verify; a string: a CA file or folder. */
  readonly verifyCa: boolean | string;
  /** Accepted for compatibility; Ironless always uses HTTP basic authentication (no sessions). */
  readonly authType: 'basic' | 'session' | 'auto';
  readonly nodeUuid: string;
}

/** Ironic's `[redfish]auth_type` default. */
const DEFAULT_AUTH_TYPE = 'auto';

/** How Python's `%s` shows a JSON value, so messages read as Ironic's do. */
function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Python's `urllib.parse.quote(value)`: percent-encode all but letters, digits, `_.-~` and `/`. */
export function quotePath(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~/-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function isPath(value: string): boolean {
  try {
    const stat = statSync(value);
    return stat.isFile() || stat.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Split a URI reference into scheme, authority and path, as the rfc3986 library Ironic uses: a
 * scheme must look like one (so `10.0.0.1:8443` and `ht tp://x` have none and get `https://`).
 */
const URI = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;
/** userinfo@host:port, host being a registered name, an IPv4 address or a bracketed IPv6 one. */
const AUTHORITY = /^(?:([A-Za-z0-9\-._~%!$&'()*+,;=:]*)@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::(\d*))?$/;

/** A bare IPv6 address gets its brackets, as Ironic's `wrap_ipv6`. */
function wrapIpv6(address: string): string {
  return /^[0-9A-Fa-f]*:[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*$/.test(address) ? `[${address}]` : address;
}

function parseAddress(raw: unknown, node: string): { address: string; rootPrefix: string } {
  const invalid = (address: string) =>
    new InvalidParameterValue(`Invalid Redfish address ${address} set in driver_info/redfish_address on node ${node}`);
  if (typeof raw !== 'string') throw invalid(pyStr(raw));
  let address = wrapIpv6(raw);
  let parts = URI.exec(address);
  if (parts === null) throw invalid(address);
  if (!parts[1] || !parts[2]) {
    // No scheme or no authority: Ironic assumes https.
    address = `https://${address}`;
    parts = URI.exec(address);
    if (parts === null) throw invalid(address);
  }
  const [, scheme = '', authority = '', path = ''] = parts;
  const auth = AUTHORITY.exec(authority);
  // NOTE: like Ironic, the path and the port's range are not checked; a bad one fails at connect time.
  if (auth === null || !auth[2]) throw invalid(address);
  return { address: `${scheme}://${authority}`, rootPrefix: path || '/redfish/v1/' };
}

/**
 * Check and read a node's Redfish driver_info, and that the conductor may reach its BMC and read
 * its CA path (`policy`).
 * @throws MissingParameterValue without `redfish_address`; InvalidParameterValue on a bad value.
 */
export function parseDriverInfo(node: Node, policy: FetchPolicy): RedfishDriverInfo {
  const info = node.driver_info ?? {};
  if (!info.redfish_address) {
    throw new MissingParameterValue(`Missing the following Redfish properties in node ${node.uuid} driver_info: ['redfish_address']`);
  }
  const { address, rootPrefix } = parseAddress(info.redfish_address, node.uuid);
  checkUrlHost(policy.bmc, address, 'driver_info/redfish_address', node.uuid);

  let systemId: string | undefined;
  if (info.redfish_system_id !== undefined && info.redfish_system_id !== null) {
    if (typeof info.redfish_system_id !== 'string') {
      throw new InvalidParameterValue(
        `Invalid value "${pyStr(info.redfish_system_id)}" set in driver_info/redfish_system_id on node ${node.uuid}. ` +
          'The value should be a path (string) to the resource that the driver will interact with. For example: /redfish/v1/Systems/1',
      );
    }
    systemId = quotePath(info.redfish_system_id);
  }

  // A key present with null is a value (Python's None), refused as Ironic refuses it.
  const rawVerify = 'redfish_verify_ca' in info ? info.redfish_verify_ca : true;
  let verifyCa: boolean | string;
  const badVerify = () =>
    new InvalidParameterValue(
      `Invalid value type set in driver_info/redfish_verify_ca on node ${node.uuid}. ` +
        `The value should be a Boolean or the path to a file/directory, not "${pyStr(rawVerify)}"`,
    );
  if (typeof rawVerify === 'boolean') {
    verifyCa = rawVerify;
  } else if (typeof rawVerify === 'string') {
    // A path is read only under the CA folders the operator allows; elsewhere it is not looked at
    // (not even whether it exists), so driver_info cannot make the conductor read its own files.
    const path = caPathAllowed(rawVerify, policy.caPaths) && isPath(rawVerify);
    const asBool = path ? undefined : boolFromString(rawVerify);
    if (!path && asBool === undefined) {
      if (rawVerify.includes('/') && !underFolders(rawVerify, policy.caPaths)) {
        throw new InvalidParameterValue(
          `Invalid value set in driver_info/redfish_verify_ca on node ${node.uuid}: the path "${rawVerify}" is not a file or directory ` +
            `under the CA folders the conductor may read (${policy.caPaths.length > 0 ? policy.caPaths.join(', ') : 'none are allowed'}). ` +
            'Use true, false, or a CA file under one of those folders.',
        );
      }
      throw badVerify();
    }
    verifyCa = asBool ?? rawVerify;
  } else {
    throw badVerify();
  }

  const authType = 'redfish_auth_type' in info ? info.redfish_auth_type : DEFAULT_AUTH_TYPE;
  if (authType !== 'basic' && authType !== 'session' && authType !== 'auto') {
    throw new InvalidParameterValue(
      `Invalid value "${pyStr(authType)}" set in driver_info/redfish_auth_type on node ${node.uuid}. ` +
        'The value should be one of "basic", "session" or "auto".',
    );
  }

  return {
    address,
    rootPrefix,
    systemId,
    username: info.redfish_username === undefined || info.redfish_username === null ? undefined : String(info.redfish_username),
    password: info.redfish_password === undefined || info.redfish_password === null ? undefined : String(info.redfish_password),
    verifyCa,
    authType,
    nodeUuid: node.uuid,
  };
}
