/**
 * The bucket the conductor puts the agent ISOs it builds in (the `redfish-virtual-media` boot
 * interface, for nodes that give a kernel and ramdisk instead of an ISO): private, TLS only,
 * encrypted, objects owned by the bucket, and a lifecycle rule expiring what a conductor could not
 * delete (an ISO is deleted when its node's ramdisk is cleaned up; a presigned URL of it lives
 * hours, so a day is plenty). BMCs fetch the ISOs through presigned GET URLs. It also holds the
 * conductor's copies of images attached as virtual media with `image_download_source` `local`.
 */
import { Duration } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/**
 * The conductor's /tmp, in GiB: room for an agent kernel, ramdisk and ESP image while an ISO is
 * built, or a virtual media image on its way to the bucket (`VMEDIA_MAX_IMAGE_BYTES`, 1.5 GiB).
 */
export const CONDUCTOR_TMP_GIB = 2;

export interface BootIsosProps {
  /** How long an ISO the conductor did not delete is kept. @default Duration.days(1) */
  readonly expiration?: Duration;
}

export class BootIsos extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: BootIsosProps = {}) {
    super(scope, id);
    const expiration = props.expiration ?? Duration.days(1);
    if (expiration.toDays({ integral: false }) < 1)
      throw new Error(`BootIsos expiration must be at least one day (S3 lifecycle rules count days), not ${expiration}`);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // SSE-S3: a presigned URL is then all a BMC needs (SSE-KMS would tie every download to the conductor role's key rights).
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireBootIsos', expiration, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
  }

  /** Put, read (to presign GETs) and delete ISOs: the conductor's rights, nothing on the bucket itself. */
  grantConductor(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
  }
}
