/**
 * The Redfish resources of the virtual machines: the service root, Systems (with Processors,
 * Memory, EthernetInterfaces, SecureBoot, the Reset action, and the storage and PCIe resources of
 * `redfish-inventory.ts`), Managers
 * (one BMC per system, with a virtual CD and a virtual floppy/USB), and Chassis. Pure routing:
 * a request in, a status and JSON document out; authentication and faults are the server's.
 */
import { consolePage, ledField, managerConsoleFields, patchLed } from './redfish-console';
import { BOOT_TARGETS, MachineRequestError, type MediaSlot, RESET_TYPES, type ResetType, type VirtualMachine } from './machine';

export { ROOT, type RedfishReply, type RedfishRequest, redfishError } from './redfish-common';
import { ROOT, type RedfishReply, type RedfishRequest, collection, notFound, redfishError, ref } from './redfish-common';
import { biosResource, registriesResource } from './bios';
import { inventoryLinks, inventoryResource, networkAdapterResource } from './redfish-inventory';
import { firmwareOf, settleFirmware, taskServiceResource, updateServiceResource } from './firmware';
import { jobQueueLink, jobQueueResource } from './idrac-jobs';

type Doc = Record<string, unknown>;

const notAllowed = (method: string, path: string) =>
  redfishError(405, 'Base.1.8.OperationNotAllowed', `${method} is not allowed on ${path}.`);

/** The machine a path names, for authentication and faults: `/redfish/v1/{Systems,Managers,Chassis}/<id>/…`. */
export function machineIdOf(path: string): string | undefined {
  const match = /^\/redfish\/v1\/(?:Systems|Managers|Chassis)\/([^/]+)/.exec(path);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

function serviceRoot(): Doc {
  return {
    '@odata.type': '#ServiceRoot.v1_11_0.ServiceRoot',
    '@odata.id': `${ROOT}/`,
    Id: 'RootService',
    Name: 'Ironless virtual BMCs',
    RedfishVersion: '1.11.0',
    Systems: ref(`${ROOT}/Systems`),
    Managers: ref(`${ROOT}/Managers`),
    Chassis: ref(`${ROOT}/Chassis`),
    Registries: ref(`${ROOT}/Registries`),
    UpdateService: ref(`${ROOT}/UpdateService`),
    TaskService: ref(`${ROOT}/TaskService`),
  };
}

function system(m: VirtualMachine): Doc {
  const path = `${ROOT}/Systems/${m.id}`;
  const threads = m.spec.processors.reduce((n, p) => n + p.threads, 0);
  return {
    '@odata.type': '#ComputerSystem.v1_13_0.ComputerSystem',
    '@odata.id': path,
    Id: m.id,
    Name: m.id,
    UUID: m.uuid,
    SystemType: 'Physical',
    Manufacturer: 'Ironless',
    Model: 'Virtual Machine',
    SKU: 'IRONLESS-VM-1',
    SerialNumber: m.uuid.slice(0, 8).toUpperCase(),
    BiosVersion: firmwareOf(m).bios,
    PowerState: m.powerState,
    ...ledField(m.leds.system),
    Status: { State: 'Enabled', Health: m.faults.health ?? 'OK' },
    Boot: {
      BootSourceOverrideTarget: m.boot.target,
      'BootSourceOverrideTarget@Redfish.AllowableValues': BOOT_TARGETS,
      BootSourceOverrideEnabled: m.boot.enabled,
      BootSourceOverrideMode: m.boot.mode,
      'BootSourceOverrideMode@Redfish.AllowableValues': ['UEFI', 'Legacy'],
    },
    ProcessorSummary: { Count: m.spec.processors.length, LogicalProcessorCount: threads, Model: m.spec.processors[0]?.model },
    MemorySummary: { TotalSystemMemoryGiB: m.spec.memoryGiB, Status: { State: 'Enabled', Health: 'OK' } },
    Processors: ref(`${path}/Processors`),
    Memory: ref(`${path}/Memory`),
    ...inventoryLinks(m),
    EthernetInterfaces: ref(`${path}/EthernetInterfaces`),
    SecureBoot: ref(`${path}/SecureBoot`),
    Bios: ref(`${path}/Bios`),
    Links: { ManagedBy: [ref(`${ROOT}/Managers/${m.id}`)], Chassis: [ref(`${ROOT}/Chassis/${m.id}`)] },
    Actions: {
      '#ComputerSystem.Reset': { target: `${path}/Actions/ComputerSystem.Reset`, 'ResetType@Redfish.AllowableValues': RESET_TYPES },
    },
  };
}

/** GET/PATCH/POST under `/redfish/v1/Systems/<id>`; `rest` is the path after the id. */
function systemResource(m: VirtualMachine, req: RedfishRequest, rest: string[]): RedfishReply {
  const path = `${ROOT}/Systems/${m.id}`;
  const body = (req.body ?? {}) as Doc;
  const [sub, item, more] = rest;
  if (sub === undefined) {
    if (req.method === 'GET') return { status: 200, body: system(m) };
    if (req.method === 'PATCH') {
      const refused = patchLed(m, 'system', body);
      if (refused !== undefined) return redfishError(400, 'Base.1.8.PropertyValueNotInList', refused);
      const boot = (body.Boot ?? {}) as Doc;
      m.setBoot({ target: boot.BootSourceOverrideTarget, enabled: boot.BootSourceOverrideEnabled, mode: boot.BootSourceOverrideMode });
      return { status: 204 };
    }
    return notAllowed(req.method, req.path);
  }
  if (sub === 'Actions' && item === 'ComputerSystem.Reset' && rest.length === 2) {
    if (req.method !== 'POST') return notAllowed(req.method, req.path);
    const type = body.ResetType;
    if (!RESET_TYPES.includes(type as ResetType)) {
      return redfishError(
        400,
        'Base.1.8.ActionParameterValueNotInList',
        `The value ${String(type)} for the parameter ResetType is not allowed.`,
      );
    }
    m.reset(type as ResetType);
    return { status: 204 };
  }
  if (sub === 'Bios') return biosResource(m, req, rest.slice(1));
  if (sub === 'SecureBoot' && rest.length === 1) {
    if (req.method === 'PATCH') {
      m.setSecureBoot(body.SecureBootEnable);
      return { status: 204 };
    }
    if (req.method !== 'GET') return notAllowed(req.method, req.path);
    return {
      status: 200,
      body: {
        '@odata.type': '#SecureBoot.v1_1_0.SecureBoot',
        '@odata.id': req.path,
        Id: 'SecureBoot',
        SecureBootEnable: m.secureBoot,
        SecureBootCurrentBoot: m.secureBoot && m.powerState === 'On' ? 'Enabled' : 'Disabled',
        SecureBootMode: 'DeployedMode',
      },
    };
  }
  // Storage, SimpleStorage and PCIeDevices (whose drives take a PATCH of their LED).
  const inventory = inventoryResource(m, req, rest);
  if (inventory !== undefined) return inventory;
  if (req.method !== 'GET') return notAllowed(req.method, req.path);
  const base = `${path}/${sub}`;
  const processors = m.spec.processors.map((p, i) => ({
    '@odata.type': '#Processor.v1_7_0.Processor',
    '@odata.id': `${base}/CPU${i}`,
    Id: `CPU${i}`,
    Socket: `CPU ${i}`,
    ProcessorType: 'CPU',
    ProcessorArchitecture: p.arch,
    InstructionSet: p.arch === 'x86' ? 'x86-64' : 'ARM-A64',
    Model: p.model,
    MaxSpeedMHz: 2400,
    TotalCores: p.cores,
    TotalThreads: p.threads,
    Status: { State: 'Enabled', Health: 'OK' },
  }));
  const dimms = [0, 1].map((i) => ({
    '@odata.type': '#Memory.v1_9_0.Memory',
    '@odata.id': `${base}/DIMM${i}`,
    Id: `DIMM${i}`,
    CapacityMiB: (m.spec.memoryGiB * 1024) / 2,
    MemoryDeviceType: 'DDR4',
    Status: { State: 'Enabled', Health: 'OK' },
  }));
  const nics = m.spec.nics.map((n) => ({
    '@odata.type': '#EthernetInterface.v1_6_0.EthernetInterface',
    '@odata.id': `${base}/${n.id}`,
    Id: n.id,
    Name: n.id,
    MACAddress: n.mac,
    PermanentMACAddress: n.mac,
    SpeedMbps: n.speedMbps,
    Status: { State: n.enabled ? 'Enabled' : 'Disabled', Health: 'OK' },
  }));
  const members: Record<string, Doc[]> = { Processors: processors, Memory: dimms, EthernetInterfaces: nics };
  if (sub in members && more === undefined) {
    const docs = members[sub] as Doc[];
    if (item === undefined)
      return {
        status: 200,
        body: collection(
          base,
          sub,
          docs.map((d) => d['@odata.id'] as string),
        ),
      };
    const doc = docs.find((d) => d.Id === item);
    return doc ? { status: 200, body: doc } : notFound(req.path);
  }
  return notFound(req.path);
}

function mediaDoc(m: VirtualMachine, slot: MediaSlot): Doc {
  const path = `${ROOT}/Managers/${m.id}/VirtualMedia/${slot}`;
  const media = m.media[slot];
  return {
    '@odata.type': '#VirtualMedia.v1_4_0.VirtualMedia',
    '@odata.id': path,
    Id: slot,
    Name: slot === 'Cd' ? 'Virtual CD' : 'Virtual Removable Media',
    MediaTypes: slot === 'Cd' ? ['CD', 'DVD'] : ['Floppy', 'USBStick'],
    Image: media.image,
    Inserted: media.inserted,
    WriteProtected: media.writeProtected,
    ConnectedVia: media.inserted ? 'URI' : 'NotConnected',
    Actions: {
      '#VirtualMedia.InsertMedia': { target: `${path}/Actions/VirtualMedia.InsertMedia` },
      '#VirtualMedia.EjectMedia': { target: `${path}/Actions/VirtualMedia.EjectMedia` },
    },
  };
}

function managerResource(m: VirtualMachine, req: RedfishRequest, rest: string[]): RedfishReply {
  const path = `${ROOT}/Managers/${m.id}`;
  const [sub, slot, actions, action] = rest;
  if (sub === undefined) {
    if (req.method !== 'GET') return notAllowed(req.method, req.path);
    return {
      status: 200,
      body: {
        '@odata.type': '#Manager.v1_10_0.Manager',
        '@odata.id': path,
        Id: m.id,
        Name: `BMC of ${m.id}`,
        ManagerType: 'BMC',
        Model: 'Ironless vBMC',
        FirmwareVersion: firmwareOf(m).bmc,
        Status: { State: 'Enabled', Health: 'OK' },
        VirtualMedia: ref(`${path}/VirtualMedia`),
        ...managerConsoleFields(ROOT, m),
        Links: { ManagerForServers: [ref(`${ROOT}/Systems/${m.id}`)], ...jobQueueLink(m) },
      },
    };
  }
  if (sub === 'Oem' && slot === 'Dell' && actions === 'Jobs') return jobQueueResource(m, req, rest.slice(3));
  if (sub === 'Oem' && slot === 'Ironless' && actions === 'GraphicalConsole' && rest.length === 3) {
    return req.method === 'GET' ? consolePage(ROOT, m) : notAllowed(req.method, req.path);
  }
  if (sub !== 'VirtualMedia') return notFound(req.path);
  if (slot === undefined) {
    if (req.method !== 'GET') return notAllowed(req.method, req.path);
    return {
      status: 200,
      body: collection(`${path}/VirtualMedia`, 'VirtualMedia', [`${path}/VirtualMedia/Cd`, `${path}/VirtualMedia/Floppy`]),
    };
  }
  if (slot !== 'Cd' && slot !== 'Floppy') return notFound(req.path);
  if (actions === undefined) {
    if (req.method === 'GET') return { status: 200, body: mediaDoc(m, slot) };
    if (req.method === 'PATCH') {
      const body = (req.body ?? {}) as Doc;
      if (body.Inserted === false || body.Image === null) m.ejectMedia(slot);
      else m.insertMedia(slot, body.Image, body.WriteProtected);
      return { status: 204 };
    }
    return notAllowed(req.method, req.path);
  }
  if (actions !== 'Actions' || rest.length !== 4) return notFound(req.path);
  if (req.method !== 'POST') return notAllowed(req.method, req.path);
  if (action === 'VirtualMedia.InsertMedia') {
    const body = (req.body ?? {}) as Doc;
    m.insertMedia(slot, body.Image, body.WriteProtected);
    return { status: 204 };
  }
  if (action === 'VirtualMedia.EjectMedia') {
    m.ejectMedia(slot);
    return { status: 204 };
  }
  return notFound(req.path);
}

function chassisResource(m: VirtualMachine, req: RedfishRequest, rest: string[]): RedfishReply {
  if (rest[0] === 'NetworkAdapters') return networkAdapterResource(m, req, rest.slice(1));
  if (rest.length > 0) return notFound(req.path);
  if (req.method === 'PATCH') {
    const refused = patchLed(m, 'chassis', (req.body ?? {}) as Doc);
    return refused === undefined ? { status: 204 } : redfishError(400, 'Base.1.8.PropertyValueNotInList', refused);
  }
  if (req.method !== 'GET') return notAllowed(req.method, req.path);
  return {
    status: 200,
    body: {
      '@odata.type': '#Chassis.v1_11_0.Chassis',
      '@odata.id': `${ROOT}/Chassis/${m.id}`,
      Id: m.id,
      Name: `Chassis of ${m.id}`,
      // Ironic names a chassis' LED by the chassis' UUID.
      UUID: m.uuid,
      ChassisType: 'RackMount',
      PowerState: m.powerState,
      ...ledField(m.leds.chassis),
      NetworkAdapters: ref(`${ROOT}/Chassis/${m.id}/NetworkAdapters`),
      Links: { ComputerSystems: [ref(`${ROOT}/Systems/${m.id}`)], ManagedBy: [ref(`${ROOT}/Managers/${m.id}`)] },
    },
  };
}

/** Answer one Redfish request (already authenticated) from the machines. */
export function routeRedfish(machines: ReadonlyMap<string, VirtualMachine>, req: RedfishRequest): RedfishReply {
  const segments = req.path.split('/').filter(Boolean).map(decodeURIComponent);
  if (segments[0] !== 'redfish' || segments[1] !== 'v1') return notFound(req.path);
  const [kind, id, ...rest] = segments.slice(2);
  if (kind === undefined) return req.method === 'GET' ? { status: 200, body: serviceRoot() } : notAllowed(req.method, req.path);
  if (kind === 'Registries') return registriesResource(req, id === undefined ? [] : [id, ...rest]);
  if (kind === 'UpdateService') return updateServiceResource(machines, req, id === undefined ? [] : [id, ...rest]);
  if (kind === 'TaskService') return taskServiceResource(machines, req, id === undefined ? [] : [id, ...rest]);
  const types: Record<string, string> = { Systems: 'ComputerSystem', Managers: 'Manager', Chassis: 'Chassis' };
  if (!(kind in types)) return notFound(req.path);
  if (id === undefined) {
    if (req.method !== 'GET') return notAllowed(req.method, req.path);
    return {
      status: 200,
      body: collection(
        `${ROOT}/${kind}`,
        types[kind] as string,
        [...machines.keys()].map((k) => `${ROOT}/${kind}/${k}`),
      ),
    };
  }
  const machine = machines.get(id);
  if (machine === undefined) return notFound(req.path);
  // An update whose time has come shows in the versions before anything reads them.
  settleFirmware(machines, machine);
  try {
    if (kind === 'Systems') return systemResource(machine, req, rest);
    if (kind === 'Managers') return managerResource(machine, req, rest);
    return chassisResource(machine, req, rest);
  } catch (err) {
    if (err instanceof MachineRequestError) return redfishError(err.status, err.messageId, err.message);
    throw err;
  }
}
