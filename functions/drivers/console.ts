/**
 * Console interfaces (Ironic's `ConsoleInterface`): start and stop a node's console session and
 * say how to reach it. The conductor records `console_enabled`; the interface keeps what its
 * session needs in `driver_internal_info`. `fake` (Ironic's FakeConsole) does nothing and answers
 * an empty connection info; `no-console` (noop.ts) refuses in `validate`.
 */
import { UnsupportedDriverExtension } from '#common/errors';
import type { Driver, HardwareInterface, Task } from './base';

export interface ConsoleInterface extends HardwareInterface {
  /** Start a session; what `getConsole` needs later is left on the node (the caller saves it). */
  startConsole(task: Task): Promise<void>;
  stopConsole(task: Task): Promise<void>;
  /** How to reach the console (`console_info` of the API): `{type, url}`, or `{}` for `fake`. */
  getConsole(task: Task): Promise<Record<string, unknown>>;
}

export const fakeConsole: ConsoleInterface = {
  name: 'fake',
  async validate() {},
  async startConsole() {},
  async stopConsole() {},
  async getConsole() {
    return {};
  },
};

function isConsole(iface: HardwareInterface): iface is ConsoleInterface {
  return typeof (iface as Partial<ConsoleInterface>).startConsole === 'function';
}

/**
 * The node's console interface, as Ironic's conductor calls it when it stops the console at a
 * tear-down and starts it again at the end of a deployment (no validation first).
 */
export function consoleOf(driver: Driver, task: Task): ConsoleInterface {
  const iface = driver.interfaces.console;
  if (!isConsole(iface)) throw new UnsupportedDriverExtension(task.node.driver, 'console');
  return iface;
}

/**
 * The node's console interface, validated (Ironic validates before every console action).
 * `no-console`'s own validate refuses; an interface without console methods refuses the same way.
 */
export async function validatedConsole(driver: Driver, task: Task): Promise<ConsoleInterface> {
  await driver.interfaces.console.validate(task);
  return consoleOf(driver, task);
}
