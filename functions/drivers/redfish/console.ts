/**
 * The `redfish-graphical` console interface (Ironic master's RedfishGraphicalConsole), for BMCs
 * that serve a graphical (KVM) console themselves.
 *
 * NOTE: Ironic starts a console container that logs in to the BMC's HTML5 console and serves it
 * over VNC through `ironic-novncproxy`; nothing of that can run in a Lambda. Here starting the
 * console asks the node's Manager for its graphical console: `GraphicalConsole.ServiceEnabled`
 * with `KVMIP` among `ConnectTypesSupported`, and the URL of the console page the BMC serves
 * (`Oem.Ironless.GraphicalConsole`, an OEM link the virtual fleet's BMC offers: Redfish has no
 * standard property for it). The page must answer; its URL is kept in driver_internal_info and
 * shown as `console_info` `{type: "vnc", url}`, the type Ironic's graphical consoles report.
 */
import { RedfishError } from '#common/errors';
import type { Task } from '../base';
import type { ConsoleInterface } from '../console';
import type { Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { getSystem, redfishFailure } from './system';

/** Where the URL of a started console is kept. */
export const CONSOLE_URL_KEY = 'redfish_console_url';

function linkOf(value: unknown): string | undefined {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
}

function setInternal(task: Task, key: string, value: string | undefined): void {
  const info = { ...task.node.driver_internal_info };
  if (value === undefined) delete info[key];
  else info[key] = value;
  task.node.driver_internal_info = info;
}

export function createRedfishGraphicalConsole(config: RedfishConfig): ConsoleInterface {
  return {
    name: 'redfish-graphical',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },
    async startConsole(task) {
      const node = task.node.uuid;
      const system = await getSystem(task, config);
      const managers = ((system.doc.Links as Resource | undefined)?.ManagedBy ?? []) as unknown[];
      const managerPath = linkOf(managers[0]);
      if (managerPath === undefined) throw new RedfishError(`The system of node ${node} names no manager: it has no graphical console.`);
      let manager: Resource;
      try {
        manager = await system.client.get(managerPath);
      } catch (err) {
        redfishFailure(err, `Reading the manager of node ${node} failed.`);
      }
      const graphical = (manager.GraphicalConsole ?? {}) as Resource;
      const types = Array.isArray(graphical.ConnectTypesSupported) ? graphical.ConnectTypesSupported : [];
      if (graphical.ServiceEnabled !== true || !types.includes('KVMIP')) {
        throw new RedfishError(`The BMC of node ${node} offers no graphical console (GraphicalConsole is not enabled for KVMIP).`);
      }
      const pagePath = linkOf(((manager.Oem as Resource | undefined)?.Ironless as Resource | undefined)?.GraphicalConsole);
      if (pagePath === undefined) throw new RedfishError(`The BMC of node ${node} does not say where its graphical console is served.`);
      try {
        await system.client.get(pagePath);
      } catch (err) {
        redfishFailure(err, `The graphical console of node ${node} is not available.`);
      }
      setInternal(task, CONSOLE_URL_KEY, system.client.url(pagePath));
    },
    async stopConsole(task) {
      setInternal(task, CONSOLE_URL_KEY, undefined);
    },
    async getConsole(task) {
      const url = task.node.driver_internal_info[CONSOLE_URL_KEY];
      return { type: 'vnc', url: typeof url === 'string' ? url : null };
    },
  };
}
