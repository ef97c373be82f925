/**
 * Object fingerprints (oslo.versionedobjects' ObjectVersionChecker): changing an object's fields
 * without bumping its VERSION and the release mapping fails here, saying what to do.
 */
import { RELEASE_MAPPING } from '../../../functions/common/releases';
import { VersionedObject, type VersionStep } from '../../../functions/objects/base';
import { type Fields, t } from '../../../functions/objects/fields';
import { fingerprintOf, fingerprintProblems } from '../../../functions/objects/fingerprint';
import { OBJECT_REGISTRY } from '../../../functions/objects/registry';

/** The schema of every object as released. Change only as a fingerprint problem below says. */
const RECORDED: Record<string, string> = {
  Node: '1.2-99d42bae69d0ef9e53cb2712f6213c11',
  Port: '1.1-d761125d9b2b6a69dd604181a059d45a',
  Portgroup: '1.1-80db0400fc3f58596fed25548c79f4b7',
  Chassis: '1.0-ffaf677027e1d44db90aa8c642f44542',
  Conductor: '1.0-831932ef67a3904e877377071ea211e5',
  DeployTemplate: '1.0-47eac8dcfff0f1f7348048f84902f620',
  Allocation: '1.0-af7a03f08d79ce349d683661864bef49',
  NodeHistory: '1.1-19eb6f8f3d11c8aca52da0dbacf5d726',
  NodeInventory: '1.0-7e3c560755fb55f157519d804a4e30f5',
  VolumeConnector: '1.0-6f88bad10336d5e0cda23178f58510cf',
  VolumeTarget: '1.0-041bd852dbbfb9edd0db4fefa6132e62',
  BIOSSetting: '1.0-ad03104da6d6a335c8a4a7f5bc6af663',
  FirmwareComponent: '1.1-121adfb5c333a47f8e2b74b9b35646e9',
  Runbook: '1.0-6db5f7a41b14afa85a449841c6cea4e5',
  InspectionRule: '1.0-3f8de65538b3251846f8919bfd7daac8',
};

describe('object fingerprints', () => {
  it('match the recorded ones, and each VERSION ends its history and leads its master mapping', () => {
    const problems = fingerprintProblems(OBJECT_REGISTRY, RECORDED, RELEASE_MAPPING);
    if (problems.length > 0) throw new Error(`\n${problems.join('\n\n')}`);
  });
});

// The check itself, over a fixture whose field table changes.
class Gizmo extends VersionedObject {
  static override readonly objName = 'Gizmo';
  static override readonly VERSION = '1.0';
  static override readonly fields: Fields = { uuid: t.uuid(), extra: t.dict({ default: {} }) };
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
class GizmoRenamed extends VersionedObject {
  static override readonly objName = 'Gizmo';
  static override readonly VERSION = '1.0';
  static override readonly fields = { uuid: t.uuid(), meta: t.dict({ default: {} }) };
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
class GizmoBumped extends VersionedObject {
  static override readonly objName = 'Gizmo';
  static override readonly VERSION = '1.1';
  static override readonly fields = GizmoRenamed.fields;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }, { version: '1.1', added: ['meta'] }];
}
const mapping = (versions: string[]) => ({ master: { objects: { Gizmo: versions } } });

describe('fingerprintProblems', () => {
  const recorded = { Gizmo: fingerprintOf(Gizmo) };

  it('passes an unchanged object', () => {
    expect(fingerprintProblems({ Gizmo }, recorded, mapping(['1.0']))).toEqual([]);
  });

  it('fails a field renamed without a version bump, saying exactly what to do', () => {
    const [problem] = fingerprintProblems({ Gizmo: GizmoRenamed }, recorded, mapping(['1.0']));
    expect(problem).toContain("Gizmo's fields changed but Gizmo.VERSION is still 1.0");
    expect(problem).toContain("in functions/objects/gizmo.ts, set VERSION = '1.1'");
    expect(problem).toContain("put '1.1' first in RELEASE_MAPPING.master.objects.Gizmo");
    expect(problem).toContain(`record the new fingerprint here: Gizmo: '1.1-${fingerprintOf(GizmoRenamed).split('-')[1]}'`);
  });

  it('fails a bump whose release mapping or recorded fingerprint was not updated', () => {
    const problems = fingerprintProblems({ Gizmo: GizmoBumped }, recorded, mapping(['1.0']));
    expect(problems).toEqual([
      expect.stringContaining(`record Gizmo: '${fingerprintOf(GizmoBumped)}'`),
      'RELEASE_MAPPING.master.objects.Gizmo is ["1.0"]: put \'1.1\' (Gizmo.VERSION) first.',
    ]);
    expect(fingerprintProblems({ Gizmo: GizmoBumped }, { Gizmo: fingerprintOf(GizmoBumped) }, mapping(['1.1', '1.0']))).toEqual([]);
  });

  it('sees a type change, a nullability change and a list element type change', () => {
    const variants = [
      { uuid: t.string(), extra: t.dict({ default: {} }) },
      { uuid: t.uuid({ nullable: true }), extra: t.dict({ default: {} }) },
      { uuid: t.uuid(), extra: t.dict({ default: { a: 1 } }) },
    ];
    for (const fields of variants) {
      class Variant extends Gizmo {
        static override readonly fields = fields;
      }
      expect(fingerprintOf(Variant)).not.toBe(fingerprintOf(Gizmo));
    }
    class Strings extends Gizmo {
      static override readonly fields = { uuid: t.uuid(), extra: t.stringList({ default: [] }) };
    }
    class Dicts extends Gizmo {
      static override readonly fields = { uuid: t.uuid(), extra: t.dictList({ default: [] }) };
    }
    expect(fingerprintOf(Strings)).not.toBe(fingerprintOf(Dicts));
  });
});
