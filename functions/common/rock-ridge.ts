/**
 * The System Use Sharing Protocol and Rock Ridge entries a genisoimage `-r` image carries in its
 * directory records: SP (SUSP in use), CE (a continuation area), ER (which extension), PX (POSIX
 * mode and links) and NM (the real name).
 */
import { both32 } from './iso9660-encoding';

/** The modes genisoimage -r gives: directories r-x, files r--, for everyone. */
export const DIR_MODE = 0o040555;
export const FILE_MODE = 0o100444;

const ER_ID = 'RRIP_1991A';
const ER_DESCRIPTION = 'THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS';
const ER_SOURCE =
  'PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.';

function entry(signature: string, body: Buffer): Buffer {
  const head = Buffer.from([signature.charCodeAt(0), signature.charCodeAt(1), 4 + body.length, 1]);
  return Buffer.concat([head, body]);
}

export function spEntry(): Buffer {
  return entry('SP', Buffer.from([0xbe, 0xef, 0]));
}

export function ceEntry(lba: number, length: number): Buffer {
  const body = Buffer.alloc(24);
  both32(body, 0, lba);
  both32(body, 8, 0);
  both32(body, 16, length);
  return entry('CE', body);
}

export function erEntry(): Buffer {
  const id = Buffer.from(ER_ID, 'latin1');
  const description = Buffer.from(ER_DESCRIPTION, 'latin1');
  const source = Buffer.from(ER_SOURCE, 'latin1');
  return entry('ER', Buffer.concat([Buffer.from([id.length, description.length, source.length, 1]), id, description, source]));
}

/** PX as RRIP 1.10 has it: mode, links, uid 0, gid 0. */
export function px(mode: number, nlinks: number): Buffer {
  const body = Buffer.alloc(32);
  both32(body, 0, mode);
  both32(body, 8, nlinks);
  return entry('PX', body);
}

export function nm(name: string): Buffer {
  return entry('NM', Buffer.concat([Buffer.from([0]), Buffer.from(name, 'utf8')]));
}
