/** Option parsers shared by the CLI's commands; a bad value is refused with what is expected. */
import { InvalidArgumentError } from 'commander';

export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is a number from 0 to 65535');
  return n;
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a whole number greater than 0');
  return n;
}
