/**
 * The documented differences from Ironic 21.4 (README, "Known differences"), as the differential
 * suite recognizes them. A difference the suite finds must match one of these, or the suite fails:
 * a new regression cannot hide among known differences.
 */
import type { Difference } from './compare';

export interface KnownDifference {
  /** Short title, as in the README. */
  readonly id: string;
  readonly why: string;
  /** Which differences it explains. */
  readonly matches: (d: Difference) => boolean;
  /** Seen only on some runs (it depends on Ironic's Python set order), so its absence is no news. */
  readonly occasional?: boolean;
}

const step =
  (...names: string[]) =>
  (d: Difference) =>
    names.includes(d.step);

/** Differences in the path of the body, under a node or a list's nodes. */
const bodyField =
  (...fields: string[]) =>
  (d: Difference) =>
    fields.some((f) => new RegExp(`^body(\\.nodes\\[\\d+\\])?\\.${f.replace(/\./g, '\\.')}$`).test(d.aspect));

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'Missing allocation candidates named in a fixed order',
    occasional: true,
    why:
      'Ironic names the allocation candidates it cannot find by joining a Python set, whose order changes from process to ' +
      'process; Ironless names the same ones in the order of the request.',
    matches: (d) => {
      const names = (v: unknown) =>
        String(v)
          .replace(/^Nodes cannot be found: /, '')
          .split(', ')
          .sort()
          .join();
      return (
        d.aspect === 'body.error_message.faultstring' &&
        /^Nodes cannot be found: /.test(String(d.ironic)) &&
        names(d.ironic) === names(d.ironless)
      );
    },
  },
  {
    id: 'fake-hardware also enables direct deploy, agent inspection, flat networking and agent RAID',
    why:
      "Ironless's fake-hardware offers the agent's direct deploy, inspect and RAID interfaces and the flat network interface beside " +
      'the fake and noop ones (the agent, inspection, RAID and VIF tests run on it); the reference Ironic enables only fake and noop.',
    matches: (d) => /^body(\.drivers\[\d+\])?\.enabled_(deploy|inspect|network|raid)_interfaces/.test(d.aspect),
  },
  {
    id: 'Valid interfaces include redfish, direct and agent',
    why:
      "Ironless enables the redfish hardware type beside fake-hardware, and the agent's direct deploy and agent inspect interfaces " +
      "on both, so an unknown interface's message lists those implementations too; the reference Ironic enables fake-hardware " +
      'and its fake interfaces only (direct would change other answers of the corpus).',
    matches: (d) =>
      d.aspect === 'body.error_message.faultstring' &&
      /Valid interfaces are \[/.test(String(d.ironless)) &&
      /redfish|direct|agent/.test(String(d.ironless)),
  },
  {
    id: 'Malformed JSON is a 400',
    why: 'Ironic 21.4 answers a request body that is not JSON with a 500; Ironless answers 400 with a message.',
    matches: step('create with malformed JSON'),
  },
  {
    id: 'Node lists with fields Ironic cannot query',
    why:
      'Ironic 21.4 fails with a 500 when a list asks for fields that are not database columns (conductor, chassis_uuid, ' +
      'allocation_uuid) or for an unknown field; Ironless answers these fields as a single node shows them, and an unknown ' +
      'one with the 400 "Field x is not a valid field." that Ironic gives for a single node.',
    matches: step('list with fields', 'list with an unknown field'),
  },
  {
    id: 'The traits limit names the node by UUID',
    why:
      'Ironic words "Could not modify traits for node N …" with its internal database id; Ironless has no such id and ' +
      'names the node by UUID.',
    matches: (d) => d.step === 'too many traits' && d.aspect === 'body.error_message.faultstring',
  },
  {
    id: 'Step bookkeeping and power state after fake-hardware provisioning',
    why:
      "Outside the node API: after cleaning and deploying, Ironic's conductor leaves driver_internal_info clean_steps / " +
      "deploy_steps as null (a failed manual clean: the steps asked for, and cleaning_disable_ramdisk) and fake-hardware's " +
      'power_state unset, while the Ironless conductor removes the step lists and records the fake power state ("power ' +
      'off"). Shown by every reply that includes such a node.',
    matches: (d) =>
      /\/v1\/nodes\/(life|rn|pv)\d/.test(d.request) &&
      bodyField(
        'driver_internal_info.clean_steps',
        'driver_internal_info.deploy_steps',
        'driver_internal_info.cleaning_disable_ramdisk',
        'power_state',
      )(d),
  },
  {
    id: 'Port and portgroup moves between nodes succeed',
    why:
      'The reference Ironic 21.4 (on SQLite) fails to save a port or portgroup moved to another node: the database error ' +
      'is misread as a duplicate MAC address, which then fails with a KeyError, and the API answers 500 "Unexpected error ' +
      'raised by RPC". Ironless moves them (with the same state and membership checks).',
    matches: step('port patch move node', 'portgroup patch move to node'),
  },
  {
    id: 'Refusals Ironic answers with a 500',
    why:
      'Ironic 21.4 answers 500 when a port is added to a portgroup of another node, and when disable_ramdisk is given to a ' +
      'verb other than clean (it raises a BadRequest without an HTTP code), and when a portgroup with ports is deleted or ' +
      'moved (on SQLite the database error escapes as "Unexpected error raised by RPC"). Ironless refuses these with a 400: ' +
      '"Port can not be added to a portgroup belonging to a different node.", "disable_ramdisk is supported only with ' +
      'manual cleaning or servicing", "… contains ports.", "… because there are ports associated with this portgroup."',
    matches: step(
      'port create portgroup of another node',
      'provide with disable_ramdisk',
      'provide with disable_ramdisk false',
      'portgroup delete with ports',
      'portgroup patch move with ports',
    ),
  },
  {
    id: 'Connectivity attributes named in a fixed order',
    occasional: true,
    why:
      "When a port's connectivity attributes may not change, Ironic lists them by joining a Python set, whose order changes " +
      'from process to process; Ironless names the same four attributes in one fixed order.',
    matches: (d) =>
      d.aspect === 'body.error_message.faultstring' &&
      /can not have any connectivity attributes/.test(String(d.ironic)) &&
      String(d.ironic).replace(/\(([^)]*)\)/, (_m, a: string) => a.split(', ').sort().join()) ===
        String(d.ironless).replace(/\(([^)]*)\)/, (_m, a: string) => a.split(', ').sort().join()),
  },
  {
    id: 'The valid faults include service failure',
    why:
      "Servicing (API 1.87) adds Ironic 2023.2's 'service failure' fault; the node list's error for an unknown fault lists it " +
      'with the others, as Ironic 2023.2 does.',
    matches: (d) =>
      d.aspect === 'body.error_message.faultstring' &&
      /^Unrecognized fault ".*" is specified, allowed faults are \(/.test(String(d.ironic)) &&
      String(d.ironless) === String(d.ironic).replace(/\)$/, ", 'service failure')"),
  },
  {
    id: 'The patchable node fields include parent_node, firmware_interface, disable_power_off and instance_name',
    why:
      "Ironless's patchable node fields are Ironic master's PATCH_ALLOWED_FIELDS, which end in parent_node and " +
      'firmware_interface (2023.2), plus disable_power_off (1.95) and instance_name (1.104), which the api-ref documents as ' +
      "patchable but master's list leaves out; the error for a field that cannot be patched lists them all at every version.",
    matches: (d) =>
      d.aspect === 'body.error_message.faultstring' &&
      /^Cannot patch .*Only the following can be updated: /.test(String(d.ironic)) &&
      String(d.ironless) === `${String(d.ironic)}, parent_node, firmware_interface, disable_power_off, instance_name`,
  },
  {
    id: 'Clean and deploy steps may name the vendor and firmware interfaces',
    why:
      "Ironless's clean, deploy and deploy template steps take Ironic 2023.2's interfaces (vendor and firmware joined power, " +
      'management, deploy, bios and raid), so the error for an interface that is none of them lists all seven, as the ' +
      'jsonschema error of Ironic 2023.2 and later does.',
    matches: (d) => {
      // jsonschema's error prints the schema with pprint, which wraps the list: compare without whitespace.
      const squeeze = (v: unknown) => String(v).replace(/\s+/g, '');
      const old = squeeze("['power', 'management', 'deploy', 'bios', 'raid']");
      const now = squeeze("['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid']");
      return (
        d.aspect === 'body.error_message.faultstring' &&
        squeeze(d.ironic).includes(old) &&
        squeeze(d.ironic).split(old).join(now) === squeeze(d.ironless)
      );
    },
  },
  {
    id: 'Console, indicator and vendor passthru actions answer 503 while pinned to 2026.2',
    why:
      'Starting a console, reading or setting indicators and running a passthru method are conductor calls or casts of RPC 1.3; ' +
      'an API pinned to a release whose conductors speak less (the suite pins 2026.2, RPC 1.0) refuses to send them: 503, ' +
      "where Ironic's pinned API would fail with its RPC version cap error. Unpinned, they answer as Ironic (integration tests).",
    matches: step('console on', 'indicators', 'indicator state', 'set an indicator', 'passthru sync'),
  },
  {
    id: "fake-hardware's vendor interface lists log_passthrough",
    why:
      "Ironless's fake vendor interface is Ironic master's FakeVendorB, whose log_passthrough is a passthru method too (Ironic 21.4's " +
      'has only the three bar methods).',
    matches: (d) => d.step === 'vendor methods' && d.aspect === 'body.log_passthrough',
  },
];

export function explain(differences: readonly Difference[]): {
  explained: Map<KnownDifference, Difference[]>;
  unexplained: Difference[];
} {
  const explained = new Map<KnownDifference, Difference[]>();
  const unexplained: Difference[] = [];
  for (const d of differences) {
    const known = KNOWN_DIFFERENCES.find((k) => k.matches(d));
    if (known === undefined) unexplained.push(d);
    else explained.set(known, [...(explained.get(known) ?? []), d]);
  }
  return { explained, unexplained };
}
