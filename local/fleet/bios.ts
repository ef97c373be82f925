/**
 * The BIOS of a virtual machine, as its Redfish BMC shows it: `Systems/<id>/Bios` with the current
 * Attributes, the `@Redfish.Settings` object (`Bios/Settings`) holding pending values, the
 * `Bios.ResetBios` action, and the attribute registry that describes every attribute (served
 * once for the fleet under `/redfish/v1/Registries`, found as sushy finds it).
 *
 * As on real firmware, nothing changes until the machine next powers on: then a pending factory
 * reset restores the defaults and pending values are applied. A PATCH is checked against the
 * registry (unknown, read-only, wrong type, not allowed, out of bounds: 400 with Redfish's
 * message). The machine's `biosIgnoresSettings` fault makes the firmware drop pending values at
 * power on without applying them (a BMC that accepts settings the firmware then ignores).
 */
import type { VirtualMachine } from './machine';
import { type RedfishReply, type RedfishRequest, ROOT, redfishError } from './redfish-common';

export const BIOS_REGISTRY_ID = 'BiosAttributeRegistry.v1_0_0';
const REGISTRIES = `${ROOT}/Registries`;
const REGISTRY_FILE = `${REGISTRIES}/${BIOS_REGISTRY_ID}`;
const REGISTRY_URI = `${REGISTRY_FILE}/Registry`;

type Value = string | number | boolean;

interface AttributeDef {
  readonly AttributeName: string;
  readonly Type: 'Enumeration' | 'String' | 'Integer' | 'Boolean';
  readonly DefaultValue: Value;
  readonly Value?: readonly { ValueName: string; ValueDisplayName: string }[];
  readonly ReadOnly?: boolean;
  readonly ResetRequired?: boolean;
  readonly IsSystemUniqueProperty?: boolean;
  readonly LowerBound?: number;
  readonly UpperBound?: number;
  readonly MinLength?: number;
  readonly MaxLength?: number;
}

const enumOf = (...names: string[]) => names.map((name) => ({ ValueName: name, ValueDisplayName: name }));

/** The attributes of the fleet's firmware; `SystemSerial` takes each machine's own serial. */
export const BIOS_ATTRIBUTES: readonly AttributeDef[] = [
  { AttributeName: 'BootMode', Type: 'Enumeration', DefaultValue: 'Uefi', Value: enumOf('Uefi', 'Bios'), ResetRequired: true },
  {
    AttributeName: 'ProcTurboMode',
    Type: 'Enumeration',
    DefaultValue: 'Enabled',
    Value: enumOf('Enabled', 'Disabled'),
    ResetRequired: true,
  },
  {
    AttributeName: 'ProcVirtualization',
    Type: 'Enumeration',
    DefaultValue: 'Enabled',
    Value: enumOf('Enabled', 'Disabled'),
    ResetRequired: true,
  },
  {
    AttributeName: 'SriovGlobalEnable',
    Type: 'Enumeration',
    DefaultValue: 'Disabled',
    Value: enumOf('Enabled', 'Disabled'),
    ResetRequired: true,
  },
  { AttributeName: 'BootDelaySeconds', Type: 'Integer', DefaultValue: 5, LowerBound: 0, UpperBound: 60, ResetRequired: false },
  { AttributeName: 'NumLock', Type: 'Boolean', DefaultValue: true, ResetRequired: false },
  { AttributeName: 'AssetTag', Type: 'String', DefaultValue: '', MinLength: 0, MaxLength: 32, ResetRequired: false },
  {
    AttributeName: 'SystemSerial',
    Type: 'String',
    DefaultValue: '',
    MinLength: 1,
    MaxLength: 16,
    ReadOnly: true,
    IsSystemUniqueProperty: true,
  },
];

const DEFS = new Map(BIOS_ATTRIBUTES.map((def) => [def.AttributeName, def]));

/** The firmware's state for one machine. */
class MachineBios {
  attributes: Record<string, Value>;
  pending: Record<string, Value> = {};
  resetPending = false;

  constructor(private readonly machine: VirtualMachine) {
    this.attributes = this.defaults();
    machine.on('powerOn', () => this.post());
  }

  defaults(): Record<string, Value> {
    const serial = this.machine.uuid.slice(0, 8).toUpperCase();
    return Object.fromEntries(BIOS_ATTRIBUTES.map((d) => [d.AttributeName, d.AttributeName === 'SystemSerial' ? serial : d.DefaultValue]));
  }

  /** Power-on self test: a pending reset, then pending values, unless the firmware ignores them. */
  private post(): void {
    if (this.resetPending) this.attributes = this.defaults();
    if (!this.machine.faults.biosIgnoresSettings) this.attributes = { ...this.attributes, ...this.pending };
    this.resetPending = false;
    this.pending = {};
  }

  /** Check values against the registry; the first problem as Redfish's message. */
  stage(values: unknown): RedfishReply | undefined {
    if (values === null || typeof values !== 'object' || Array.isArray(values)) {
      return redfishError(
        400,
        'Base.1.8.PropertyValueTypeError',
        'The value for the property Attributes is of a different type than the property can accept.',
      );
    }
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      const def = DEFS.get(name);
      if (def === undefined)
        return redfishError(
          400,
          'Base.1.8.PropertyUnknown',
          `The property ${name} is not in the list of valid properties for the resource.`,
        );
      if (def.ReadOnly)
        return redfishError(
          400,
          'Base.1.8.PropertyNotWritable',
          `The property ${name} is a read only property and cannot be assigned a value.`,
        );
      const problem = valueProblem(def, value);
      if (problem !== undefined)
        return redfishError(400, problem, `The value ${JSON.stringify(value)} for the property ${name} is not valid.`);
    }
    this.pending = { ...this.pending, ...(values as Record<string, Value>) };
    return undefined;
  }
}

function valueProblem(def: AttributeDef, value: unknown): string | undefined {
  switch (def.Type) {
    case 'Enumeration':
      if (typeof value !== 'string') return 'Base.1.8.PropertyValueTypeError';
      return def.Value?.some((v) => v.ValueName === value) ? undefined : 'Base.1.8.PropertyValueNotInList';
    case 'Integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'Base.1.8.PropertyValueTypeError';
      return value < (def.LowerBound ?? -Infinity) || value > (def.UpperBound ?? Infinity) ? 'Base.1.8.PropertyValueOutOfRange' : undefined;
    case 'Boolean':
      return typeof value === 'boolean' ? undefined : 'Base.1.8.PropertyValueTypeError';
    case 'String':
      if (typeof value !== 'string') return 'Base.1.8.PropertyValueTypeError';
      return value.length < (def.MinLength ?? 0) || value.length > (def.MaxLength ?? Infinity)
        ? 'Base.1.8.PropertyValueFormatError'
        : undefined;
  }
}

const firmware = new WeakMap<VirtualMachine, MachineBios>();

/** The machine's BIOS, created with its defaults the first time anything asks. */
export function biosOf(machine: VirtualMachine): MachineBios {
  let bios = firmware.get(machine);
  if (bios === undefined) {
    bios = new MachineBios(machine);
    firmware.set(machine, bios);
  }
  return bios;
}

const notAllowed = (req: RedfishRequest) =>
  redfishError(405, 'Base.1.8.OperationNotAllowed', `${req.method} is not allowed on ${req.path}.`);
const notFound = (req: RedfishRequest) =>
  redfishError(404, 'Base.1.8.ResourceMissingAtURI', `The resource at the URI ${req.path} was not found.`);

/** `/redfish/v1/Systems/<id>/Bios[/…]`; `rest` is the path after `Bios`. */
export function biosResource(machine: VirtualMachine, req: RedfishRequest, rest: readonly string[]): RedfishReply {
  const bios = biosOf(machine);
  const path = `${ROOT}/Systems/${machine.id}/Bios`;
  if (rest.length === 0) {
    if (req.method !== 'GET') return notAllowed(req);
    return {
      status: 200,
      body: {
        '@odata.type': '#Bios.v1_1_0.Bios',
        '@odata.id': path,
        Id: 'BIOS',
        Name: 'BIOS Configuration Current Settings',
        AttributeRegistry: BIOS_REGISTRY_ID,
        Attributes: { ...bios.attributes },
        '@Redfish.Settings': {
          '@odata.type': '#Settings.v1_3_0.Settings',
          SettingsObject: { '@odata.id': `${path}/Settings` },
          SupportedApplyTimes: ['OnReset'],
        },
        Actions: { '#Bios.ResetBios': { target: `${path}/Actions/Bios.ResetBios` } },
      },
    };
  }
  if (rest.length === 1 && rest[0] === 'Settings') {
    if (req.method === 'GET') {
      return {
        status: 200,
        body: { '@odata.type': '#Bios.v1_1_0.Bios', '@odata.id': `${path}/Settings`, Id: 'Settings', Attributes: { ...bios.pending } },
      };
    }
    if (req.method !== 'PATCH') return notAllowed(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const applyTime = (body['@Redfish.SettingsApplyTime'] as { ApplyTime?: unknown } | undefined)?.ApplyTime;
    if (applyTime !== undefined && applyTime !== 'OnReset') {
      return redfishError(
        400,
        'Base.1.8.PropertyValueNotInList',
        `The value ${String(applyTime)} for the property ApplyTime is not in the list of acceptable values.`,
      );
    }
    return bios.stage(body.Attributes) ?? { status: 204 };
  }
  if (rest.length === 2 && rest[0] === 'Actions' && rest[1] === 'Bios.ResetBios') {
    if (req.method !== 'POST') return notAllowed(req);
    bios.resetPending = true;
    bios.pending = {};
    return { status: 204 };
  }
  return notFound(req);
}

/** `/redfish/v1/Registries[/…]`: the BIOS attribute registry, the only registry the fleet publishes. */
export function registriesResource(req: RedfishRequest, rest: readonly string[]): RedfishReply {
  if (req.method !== 'GET') return notAllowed(req);
  if (rest.length === 0) {
    return {
      status: 200,
      body: {
        '@odata.type': '#MessageRegistryFileCollection.MessageRegistryFileCollection',
        '@odata.id': REGISTRIES,
        Name: 'Registry File Collection',
        'Members@odata.count': 1,
        Members: [{ '@odata.id': REGISTRY_FILE }],
      },
    };
  }
  if (rest[0] !== BIOS_REGISTRY_ID || rest.length > 2 || (rest.length === 2 && rest[1] !== 'Registry')) return notFound(req);
  if (rest.length === 1) {
    return {
      status: 200,
      body: {
        '@odata.type': '#MessageRegistryFile.v1_1_0.MessageRegistryFile',
        '@odata.id': REGISTRY_FILE,
        Id: BIOS_REGISTRY_ID,
        Name: 'BIOS Attribute Registry File',
        Registry: 'BiosAttributeRegistry.1.0',
        Languages: ['en'],
        Location: [{ Language: 'en', Uri: REGISTRY_URI }],
      },
    };
  }
  return {
    status: 200,
    body: {
      '@odata.type': '#AttributeRegistry.v1_3_0.AttributeRegistry',
      '@odata.id': REGISTRY_URI,
      Id: BIOS_REGISTRY_ID,
      Name: 'Ironless virtual BIOS Attribute Registry',
      Language: 'en',
      OwningEntity: 'Ironless',
      RegistryVersion: '1.0.0',
      RegistryEntries: { Attributes: BIOS_ATTRIBUTES.map((def) => ({ ReadOnly: false, ...def })) },
    },
  };
}
