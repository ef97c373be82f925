/**
 * The conductor RPC API: method names, their arguments, and the envelope every message travels in.
 *
 * Like Ironic's `conductor/rpcapi.py`, the API is versioned as a whole ("1.N"); each method says
 * the version that introduced it, and a client capped below that version may not send it. Every
 * message carries the version it was built for, so a receiver can refuse what it cannot handle.
 */

// RPC API version history (release 2026.2 froze 1.0, 2026.3 froze 1.1):
// 1.0: do_node_deploy, do_node_tear_down, do_provisioning_action, do_node_clean,
//      change_node_power_state (casts); validate_driver_interfaces (call).
//      Management: change_node_boot_mode, change_node_secure_boot (casts); set_boot_device,
//      get_boot_device, get_supported_boot_devices, inject_nmi, vif_list, vif_attach, vif_detach (calls).
//      Allocations: create_allocation (cast).
//      Agent: heartbeat (cast; the API has checked the agent's token); do_node_deploy's deploy_steps.
// 1.1: Servicing (API 1.87): do_node_service (cast); do_provisioning_action's `unhold` action
//      (API 1.85; a 2026.2 conductor does not know it, and an API pinned to 2026.2 refuses 1.85).
//      do_node_clean's disable_ramdisk (API 1.70; a 2026.2 conductor would boot the ramdisk anyway,
//      so a client capped at 1.0 refuses to send it: see ARG_VERSIONS).
// 1.2: In-band inspection: continue_inspection (cast; the API has found the node in `inspect wait`,
//      moved it to `inspecting` and locked it for the message). A conductor of 2026.3 (1.1) does
//      not know it: a service capped below 1.2 never sends it, and never starts an inspection
//      that would need it (see the `agent` inspect interface).
// 1.3: Console (set_console_mode cast; get_console_information call), indicators
//      (get_supported_indicators, get_indicator_state, set_indicator_state calls) and vendor
//      passthru (vendor_passthru, driver_vendor_passthru calls). A 2026.3 conductor knows none of
//      them: an API capped below 1.3 answers these endpoints 503 (its client refuses to send).
// 1.4: Virtual media (API 1.89/1.93): attach_virtual_media, detach_virtual_media,
//      get_virtual_media (calls). A conductor of 1.3 knows none of them: an API capped below 1.4
//      answers these endpoints 503 (its client refuses to send).
// 1.5: Work Ironic's conductor spawns after answering a call: do_attach_virtual_media,
//      do_detach_virtual_media and do_vendor_passthru (casts the conductor sends itself, the
//      node locked for them by the call). A conductor capped below 1.5 (pinned) never sends them
//      and runs that work within the call, as before: a conductor of 1.4 would not know them.
export const RPC_API_VERSION = '1.5';

export interface RequestContext {
  /** The request id of the API call that caused this message (Ironic's `openstack-request-id`). */
  readonly request_id: string;
}

export interface RpcMethods {
  /** Deploy (or rebuild) a node the API has moved to `deploying` and locked for this message. */
  do_node_deploy: {
    node_id: string;
    rebuild: boolean;
    lock_token: string;
    /** The user's deploy_steps (API 1.69), validated against Ironic's schema by the API. */
    deploy_steps?: { interface: string; step: string; args: Record<string, unknown>; priority: number | string }[];
  };
  /** Tear down a node the API has moved to `deleting`. */
  do_node_tear_down: { node_id: string; lock_token: string };
  /** manage, provide, inspect, adopt, rescue, unrescue: the API has moved the node to the verb's first state. */
  do_provisioning_action: { node_id: string; action: string; lock_token: string; rescue_password?: string };
  /** Manual cleaning with the given steps, from `cleaning` (target manageable). */
  do_node_clean: {
    node_id: string;
    lock_token: string;
    clean_steps: { interface: string; step: string; args?: Record<string, unknown> }[];
    /** Run only out-of-band steps, without booting the ramdisk (API 1.70; RPC 1.1). */
    disable_ramdisk?: boolean;
  };
  /** Servicing of an active node with the given steps, from `servicing` (target active). */
  do_node_service: {
    node_id: string;
    lock_token: string;
    service_steps: { interface: string; step: string; args?: Record<string, unknown> }[];
    disable_ramdisk?: boolean;
  };
  /** Power action: the API has set target_power_state and locked the node. */
  change_node_power_state: { node_id: string; lock_token: string; target: string; timeout?: number };
  /** Find and reserve a node for an allocation the API created in state `allocating`. */
  create_allocation: { allocation_id: string };
  /** An agent heartbeat whose token the API has checked (Ironic's heartbeat RPC). */
  heartbeat: {
    node_id: string;
    callback_url: string;
    agent_version: string | null;
    agent_verify_ca?: string | null;
    agent_status?: string | null;
  };
  /**
   * The inventory an agent booted for in-band inspection posted (`POST /v1/continue_inspection`):
   * the API found the node waiting in `inspect wait`, moved it to `inspecting` and locked it for
   * this message. `plugin_data` is the rest of what the ramdisk sent, without its logs.
   */
  continue_inspection: {
    node_id: string;
    lock_token: string;
    inventory: Record<string, unknown>;
    plugin_data: Record<string, unknown>;
    /** Where the API staged the ramdisk's `logs` in the ramdisk logs bucket, if it posted any (RPC 1.2, unreleased with it). */
    logs_key?: string;
  };
  /** Call: validate every interface of the node's driver (GET /v1/nodes/{id}/validate). */
  validate_driver_interfaces: { node_id: string };
  /** Boot mode / secure boot change: the API has cleared last_error and locked the node for this message. */
  change_node_boot_mode: { node_id: string; lock_token: string; target: string };
  change_node_secure_boot: { node_id: string; lock_token: string; target: boolean };
  /** Calls: management of a node; each takes the node's lock for its duration (409 when held). */
  set_boot_device: { node_id: string; device: string; persistent: boolean };
  get_boot_device: { node_id: string };
  get_supported_boot_devices: { node_id: string };
  inject_nmi: { node_id: string };
  /** Calls: VIFs of a node, through its network interface. */
  vif_list: { node_id: string };
  vif_attach: { node_id: string; vif_info: { id: string; [key: string]: unknown } };
  vif_detach: { node_id: string; vif_id: string };
  /** Start or stop the console: the API has validated the console interface, cleared last_error and locked the node. */
  set_console_mode: { node_id: string; lock_token: string; enabled: boolean };
  /** Call: how to reach the node's console (NodeConsoleNotEnabled when it is off). */
  get_console_information: { node_id: string };
  /** Calls: indicator LEDs through the management interface. */
  get_supported_indicators: { node_id: string; component?: string };
  get_indicator_state: { node_id: string; component: string; indicator: string };
  set_indicator_state: { node_id: string; component: string; indicator: string; state: string };
  /**
   * Calls: a vendor passthru method of a node's vendor interface, or of a hardware type's default
   * one. An `async` node method is answered at once and cast as do_vendor_passthru (RPC 1.5).
   */
  vendor_passthru: { node_id: string; method: string; http_method: string; info: Record<string, unknown> };
  driver_vendor_passthru: { driver_name: string; method: string; http_method: string; info: Record<string, unknown> };
  /**
   * Calls: virtual media through the management interface; device types are Ironic's
   * `VMEDIA_DEVICES`. Attach and detach answer once the node is locked and validated; the action
   * is cast as do_attach_virtual_media / do_detach_virtual_media (RPC 1.5).
   */
  attach_virtual_media: { node_id: string; device_type: string; image_url: string; image_download_source: string };
  /** No `device_types`: every device. */
  detach_virtual_media: { node_id: string; device_types?: string[] };
  get_virtual_media: { node_id: string };
  /**
   * Casts from the conductor to itself: the work its attach_virtual_media, detach_virtual_media
   * and vendor_passthru calls validated, locked the node for (`lock_token`) and answered.
   */
  do_attach_virtual_media: { node_id: string; lock_token: string; device_type: string; image_url: string; image_download_source: string };
  do_detach_virtual_media: { node_id: string; lock_token: string; device_types?: string[] };
  /** An `async` node method; no `lock_token` for a method that needs no exclusive lock. */
  do_vendor_passthru: { node_id: string; lock_token?: string; method: string; http_method: string; info: Record<string, unknown> };
}

/** What a vendor passthru call answers (Ironic's `{return, async, attach}`). */
export interface PassthruResult {
  readonly return: unknown;
  readonly async: boolean;
  readonly attach: boolean;
}

/** Methods answered synchronously (Lambda Invoke), with their results. */
export interface RpcResults {
  validate_driver_interfaces: Record<string, { result: boolean | null; reason?: string }>;
  set_boot_device: null;
  get_boot_device: { boot_device: string | null; persistent: boolean | null };
  get_supported_boot_devices: string[];
  inject_nmi: null;
  vif_list: { id: string }[];
  vif_attach: null;
  vif_detach: null;
  get_console_information: Record<string, unknown>;
  get_supported_indicators: Record<string, Record<string, { readonly: boolean; states: string[] }>>;
  get_indicator_state: string;
  set_indicator_state: null;
  vendor_passthru: PassthruResult;
  driver_vendor_passthru: PassthruResult;
  attach_virtual_media: null;
  detach_virtual_media: null;
  get_virtual_media: { media_types: string[]; inserted: boolean; image: string | null }[];
}

export type RpcMethod = keyof RpcMethods;

/** Methods answered synchronously (Lambda Invoke, `{entry:'call'}`); every other one is a cast over SQS. */
export const CALL_METHODS: ReadonlySet<RpcMethod> = new Set<RpcMethod>([
  'validate_driver_interfaces',
  'set_boot_device',
  'get_boot_device',
  'get_supported_boot_devices',
  'inject_nmi',
  'vif_list',
  'vif_attach',
  'vif_detach',
  'get_console_information',
  'get_supported_indicators',
  'get_indicator_state',
  'set_indicator_state',
  'vendor_passthru',
  'driver_vendor_passthru',
  'attach_virtual_media',
  'detach_virtual_media',
  'get_virtual_media',
]);

/** The version of the RPC API that introduced each method. */
export const METHOD_VERSIONS: Readonly<Record<RpcMethod, string>> = {
  do_node_deploy: '1.0',
  do_node_tear_down: '1.0',
  do_provisioning_action: '1.0',
  do_node_clean: '1.0',
  do_node_service: '1.1',
  change_node_power_state: '1.0',
  validate_driver_interfaces: '1.0',
  change_node_boot_mode: '1.0',
  change_node_secure_boot: '1.0',
  set_boot_device: '1.0',
  get_boot_device: '1.0',
  get_supported_boot_devices: '1.0',
  inject_nmi: '1.0',
  vif_list: '1.0',
  vif_attach: '1.0',
  vif_detach: '1.0',
  create_allocation: '1.0',
  heartbeat: '1.0',
  continue_inspection: '1.2',
  set_console_mode: '1.3',
  get_console_information: '1.3',
  get_supported_indicators: '1.3',
  get_indicator_state: '1.3',
  set_indicator_state: '1.3',
  vendor_passthru: '1.3',
  driver_vendor_passthru: '1.3',
  attach_virtual_media: '1.4',
  detach_virtual_media: '1.4',
  get_virtual_media: '1.4',
  do_attach_virtual_media: '1.5',
  do_detach_virtual_media: '1.5',
  do_vendor_passthru: '1.5',
};

/**
 * Arguments added to a method after the version that introduced it, with the version that added
 * each: a message carrying one needs that version (Ironic's rpcapi raises the version it prepares
 * when such an argument is given).
 */
export const ARG_VERSIONS: Readonly<Partial<Record<RpcMethod, Readonly<Record<string, string>>>>> = {
  do_node_clean: { disable_ramdisk: '1.1' },
};

export interface RpcMessage<M extends RpcMethod = RpcMethod> {
  /** RPC API version this message was built for. */
  readonly rpc: string;
  readonly method: M;
  readonly args: RpcMethods[M];
  readonly context: RequestContext;
  /** Unique per message; receivers de-duplicate redeliveries by it. */
  readonly message_id: string;
}

export function isRpcMessage(value: unknown): value is RpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.rpc === 'string' &&
    typeof m.method === 'string' &&
    typeof m.args === 'object' &&
    m.args !== null &&
    typeof m.message_id === 'string'
  );
}

/** What a call returns: its result, or the error to raise on the caller's side. */
export type CallReply<T = unknown> =
  { readonly result: T } | { readonly error: { readonly name: string; readonly code: number; readonly message: string } };

export function isCallEvent(value: unknown): value is { entry: 'call'; message: RpcMessage } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { entry?: unknown }).entry === 'call' &&
    isRpcMessage((value as { message?: unknown }).message)
  );
}
