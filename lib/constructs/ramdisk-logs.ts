/**
 * The bucket the conductor keeps the ramdisk's logs in (Ironic's `[agent]deploy_logs_storage_backend`
 * `swift`, its container here a bucket): private, TLS only, encrypted, objects owned by the bucket,
 * and a lifecycle rule expiring each archive after `deployLogsDaysToExpire` days, as Ironic's
 * `X-Delete-After` does. The conductor may only put archives in it; operators read them with
 * their own rights (`aws s3 cp s3://<RamdiskLogsBucket>/<file> .`).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface RamdiskLogsProps {
  /** Days an archive is kept (Ironic's `deploy_logs_swift_days_to_expire`); 0 keeps them until deleted. @default 30 */
  readonly daysToExpire?: number;
}

export class RamdiskLogs extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: RamdiskLogsProps = {}) {
    super(scope, id);
    const days = props.daysToExpire ?? 30;
    if (!Number.isInteger(days) || days < 0)
      throw new Error(`RamdiskLogs daysToExpire must be a whole number of days, 0 to keep the logs, not ${days}`);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Logs outlive the stack, as the retained log groups do: they are what explains a failure.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'ExpireRamdiskLogs',
          ...(days > 0 ? { expiration: Duration.days(days) } : {}),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
  }

  /** Put archives: the conductor's only right on the bucket (it never reads, lists or deletes them). */
  grantConductor(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('*')] }),
    );
  }
}
