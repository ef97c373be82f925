/**
 * ECMA-119's encodings of numbers and dates: integers written both-byte-order (little-endian, then
 * big-endian), a directory record's 7-byte date and a volume descriptor's 17-byte one.
 */

export function both32(buffer: Buffer, at: number, value: number): void {
  buffer.writeUInt32LE(value, at);
  buffer.writeUInt32BE(value, at + 4);
}

export function both16(buffer: Buffer, at: number, value: number): void {
  buffer.writeUInt16LE(value, at);
  buffer.writeUInt16BE(value, at + 2);
}

/** A directory record's 7-byte date, in UTC. */
export function recordDate(buffer: Buffer, at: number, date: Date): void {
  buffer[at] = date.getUTCFullYear() - 1900;
  buffer[at + 1] = date.getUTCMonth() + 1;
  buffer[at + 2] = date.getUTCDate();
  buffer[at + 3] = date.getUTCHours();
  buffer[at + 4] = date.getUTCMinutes();
  buffer[at + 5] = date.getUTCSeconds();
  buffer[at + 6] = 0;
}

/** A volume descriptor's 17-byte date (digits, then the offset from UTC); none is all zeros. */
export function volumeDate(buffer: Buffer, at: number, date: Date | undefined): void {
  if (date === undefined) {
    buffer.write('0000000000000000', at, 'latin1');
    buffer[at + 16] = 0;
    return;
  }
  const two = (n: number) => String(n).padStart(2, '0');
  const digits =
    String(date.getUTCFullYear()).padStart(4, '0') +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes()) +
    two(date.getUTCSeconds()) +
    two(Math.floor(date.getUTCMilliseconds() / 10));
  buffer.write(digits, at, 'latin1');
  buffer[at + 16] = 0;
}
