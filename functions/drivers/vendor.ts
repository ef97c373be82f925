/**
 * Vendor passthru (Ironic's `VendorInterface` with its `@passthru`/`@driver_passthru` methods):
 * named methods a vendor interface exposes through `/v1/nodes/{node}/vendor_passthru` and
 * `/v1/drivers/{driver}/vendor_passthru`, with the metadata Ironic lists for them. An interface
 * without methods (`no-vendor`, the redfish type's) answers "No handler for method …".
 */
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import type { HardwareInterface, Task } from './base';

/** What a driver-level method gets: no node, only a logger. */
export interface DriverTask {
  readonly log: Task['log'];
}

export interface PassthruMethod<T = Task> {
  readonly http_methods: readonly string[];
  /** Ironic runs an async method in a background worker and answers 202 at once; a sync one answers 200 with its result. */
  readonly async: boolean;
  readonly description: string;
  /** Return the result as the response body's bytes rather than JSON (Ironic's `attach`). */
  readonly attach: boolean;
  /** Node methods: whether the node is locked while the method runs (Ironic's default true). */
  readonly require_exclusive_lock?: boolean;
  run(task: T, httpMethod: string, args: Record<string, unknown>): Promise<unknown>;
}

/** The metadata Ironic lists for a method (its `get_vendor_passthru_metadata`): everything but the function. */
export type PassthruMetadata = Omit<PassthruMethod<unknown>, 'run'>;

export interface VendorInterface extends HardwareInterface {
  /** Node passthru methods by name. */
  readonly vendorRoutes?: Readonly<Record<string, PassthruMethod>>;
  /** Driver passthru methods by name (no node). */
  readonly driverRoutes?: Readonly<Record<string, PassthruMethod<DriverTask>>>;
  /** Ironic's `validate(task, method, **kwargs)` of a passthru call; the task is undefined for driver methods. */
  validatePassthru?(task: Task | undefined, method: string, args: Record<string, unknown>): void;
}

export function passthruMetadata(routes: Readonly<Record<string, PassthruMethod<never>>> | undefined): Record<string, PassthruMetadata> {
  const out: Record<string, PassthruMetadata> = {};
  for (const [name, method] of Object.entries(routes ?? {})) {
    const { run: _run, ...metadata } = method;
    out[name] = metadata;
  }
  return out;
}

/** The method to run for a passthru request, with Ironic's refusals: unknown method, wrong HTTP method. */
export function passthruRoute<T>(
  routes: Readonly<Record<string, PassthruMethod<T>>> | undefined,
  method: string,
  httpMethod: string,
): PassthruMethod<T> {
  const route = routes?.[method];
  if (route === undefined) throw new InvalidParameterValue(`No handler for method ${method}`);
  if (!route.http_methods.includes(httpMethod.toUpperCase())) {
    throw new InvalidParameterValue(`The method ${method} does not support HTTP ${httpMethod.toUpperCase()}`);
  }
  return route;
}

/** Python's truth of a JSON value (empty lists and objects are false too). */
function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

function nodeMethod(description: string, check: string, options: { async?: boolean; lock?: boolean } = {}): PassthruMethod {
  return {
    http_methods: ['POST'],
    async: options.async ?? true,
    description,
    attach: false,
    require_exclusive_lock: options.lock ?? true,
    async run(task, _httpMethod, args) {
      task.log.info('fake vendor passthru', { node: task.node.uuid, args });
      return args.bar === check;
    },
  };
}

/**
 * Ironic's FakeVendorB (fake-hardware's `fake` vendor interface): three methods that compare `bar`
 * with a word, and master's `log_passthrough`, which only logs. No driver-level methods.
 */
export const FAKE_VENDOR_PASSTHRU: Pick<VendorInterface, 'vendorRoutes' | 'validatePassthru'> = {
  vendorRoutes: {
    second_method: nodeMethod('Test if the value of bar is kazoo', 'kazoo'),
    third_method_sync: nodeMethod('Test if the value of bar is meow', 'meow', { async: false }),
    fourth_method_shared_lock: nodeMethod('Test if the value of bar is woof', 'woof', { lock: false }),
    log_passthrough: {
      http_methods: ['POST'],
      async: true,
      description: 'Test pass-through to wait.',
      attach: false,
      require_exclusive_lock: true,
      async run(task, _httpMethod, args) {
        task.log.info('log_passthrough vendor passthru', { node: task.node.uuid, args });
        return null;
      },
    },
  },
  validatePassthru(_task, method, args) {
    if (['second_method', 'third_method_sync', 'fourth_method_shared_lock'].includes(method) && !pyTruthy(args.bar)) {
      throw new MissingParameterValue(`Parameter 'bar' not passed to method '${method}'.`);
    }
  },
};
