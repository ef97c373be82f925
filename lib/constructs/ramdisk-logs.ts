/**
 * The bucket the conductor keeps the ramdisk's logs in (Ironic's `[agent]deploy_logs_storage_backend`
 * `swift`, its container here a bucket): private, TLS only, encrypted, objects owned by the bucket,
 * and a lifecycle rule expiring each archive after `deployLogsDaysToExpire` days, as Ironic's
 * `X-Delete-After` does. The conductor puts archives in it; operators read them with their own
 * rights (`aws s3 cp s3://<RamdiskLogsBucket>/<file> .`).
 *
 * In-band inspection: the API stages the logs a ramdisk posts under `pending/` (too large for the
 * cast to the conductor), kept a day; the conductor copies them to their name when the
 * inspection's outcome keeps them (so it may read `pending/`, and nothing else).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Where the API stages inspection logs (`PENDING_PREFIX` in functions/drivers/agent/ramdisk-logs.ts). */
const PENDING = 'pending/';

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
        // Staged inspection logs the conductor copied, or did not keep (on_failure and a successful inspection).
        { id: 'ExpireStagedInspectionLogs', prefix: PENDING, expiration: Duration.days(1) },
      ],
    });
  }

  /** Put archives, and read staged inspection logs to copy them (CopyObject): it never lists or deletes. */
  grantConductor(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('*')] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${PENDING}*`)] }),
    );
  }

  /** Stage the logs a ramdisk posts with its inspection data: put under `pending/`, nothing else. */
  grantApi(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects(`${PENDING}*`)] }),
    );
  }
}
