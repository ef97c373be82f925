/**
 * API microversions (Ironic's `api/controllers/base.py` Version and `v1/versions.py`).
 *
 * The request names its version in `X-OpenStack-Ironic-API-Version`; `latest` means the maximum; no
 * header means the minimum, 1.1. (Ironic 21.4 does not read the generic `OpenStack-API-Version`
 * header: a request with only that one is served at 1.1, as here.) The maximum is
 * the pinned release's `api`, so a pinned API refuses what the older release could not serve.
 */
import { httpErrors } from '#common/errors';

export const MIN_VERSION = { major: 1, minor: 1 } as const;

export interface ApiVersion {
  readonly major: number;
  readonly minor: number;
}

export const VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
export const MIN_VERSION_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version';
export const MAX_VERSION_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version';

export function versionString(v: ApiVersion): string {
  return `${v.major}.${v.minor}`;
}

export function parseVersion(text: string): ApiVersion | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(text.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** The version string the request asked for, from either header; undefined when absent. */
export function requestedVersion(headers: Readonly<Record<string, string>>): string | undefined {
  const ironic = headers[VERSION_HEADER.toLowerCase()];
  if (ironic !== undefined) return ironic;
  return undefined;
}

/** Negotiate the request's version against [1.1, max]; NotAcceptable (406) outside it. */
export function negotiate(headers: Readonly<Record<string, string>>, max: ApiVersion): ApiVersion {
  const asked = requestedVersion(headers);
  if (asked === undefined) return MIN_VERSION;
  const version = asked.toLowerCase() === 'latest' ? max : parseVersion(asked);
  if (version === undefined) throw httpErrors.notAcceptable(`Invalid value for ${VERSION_HEADER} header`);
  const range = `[${versionString(MIN_VERSION)}, ${versionString(max)}]`;
  // Refusing a version outside the range still tells the client the range, in headers too.
  const rangeHeaders = { [MIN_VERSION_HEADER]: versionString(MIN_VERSION), [MAX_VERSION_HEADER]: versionString(max) };
  if (version.major !== 1) {
    throw httpErrors.notAcceptable(
      `Mutually exclusive versions requested. Version ${versionString(version)} requested but not supported by this service. The supported version range is: ${range}.`,
      rangeHeaders,
    );
  }
  if (version.minor < MIN_VERSION.minor || version.minor > max.minor) {
    throw httpErrors.notAcceptable(
      `Version ${versionString(version)} was requested but the minor version is not supported by this service. The supported version range is: ${range}.`,
      rangeHeaders,
    );
  }
  return version;
}

/** Whether the request's version is at least 1.`minor`. */
export function atLeast(version: ApiVersion, minor: number): boolean {
  return version.major > 1 || (version.major === 1 && version.minor >= minor);
}
