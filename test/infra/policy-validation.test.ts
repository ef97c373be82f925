/**
 * Policy validation at synth on every variant of the stack: cdk-nag's AWS Solutions pack and AWS
 * Control Tower's proactive controls (cfn-guard, `@cdklabs/cdk-validator-cfnguard`), with only the
 * findings `lib/nag.ts` acknowledges (each with its reason). Synthesis throws on any other.
 */
import { App } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { IronlessStack, type IronlessStackProps } from '../../lib/ironless-stack';
import { inapplicableRules } from '../../lib/guard';
import { acknowledgeNagFindings, addPolicyValidation } from '../../lib/nag';
import { synthValidated } from './helpers';

const VPCE = 'vpce-0123456789abcdef0';

const VARIANTS: [string, IronlessStackProps][] = [
  ['default (http_basic, REGIONAL)', {}],
  ['noauth on a public endpoint, opted in', { settings: { authStrategy: 'noauth' }, api: { allowUnauthenticatedPublicApi: true } }],
  ['noauth on a PRIVATE endpoint', { settings: { authStrategy: 'noauth' }, api: { endpointType: 'PRIVATE', vpcEndpointIds: [VPCE] } }],
  ['http_basic on a PRIVATE endpoint', { api: { endpointType: 'PRIVATE', sourceVpcIds: ['vpc-0fedcba9876543210'] } }],
  [
    'WAF, dashboard, image buckets, the operator’s topic, verbose step logs',
    {
      api: { waf: { rateLimit: 1000 }, apiReservedConcurrency: false },
      dashboard: true,
      alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:ops',
      settings: { imageBuckets: ['images-a', 'images-b'] },
    },
  ],
  [
    'the conductor in a VPC, several groups',
    {
      settings: { conductorGroups: ['', 'rack-a'] },
      conductorNetwork: {
        vpcId: 'vpc-0abc',
        availabilityZones: ['us-east-1a', 'us-east-1b'],
        subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0aaaaaaaaaaaaaaa2'],
        securityGroupIds: ['sg-0bbbbbbbbbbbbbbb1'],
      },
    },
  ],
  ['logs kept a month (the operator’s choice)', { logRetention: RetentionDays.ONE_MONTH }],
  [
    'live follows every deploy (rollout cdk-deploy), release 2026.3, no operator policy',
    { rollout: 'cdk-deploy', release: '2026.3', upgradeOperatorPolicy: false },
  ],
];

it.each(VARIANTS)('passes both packs: %s', (_name, props) => {
  expect(() => synthValidated('Variant', props)).not.toThrow();
});

it('runs the Control Tower rules at synth: without their acknowledgements, the findings fail it', () => {
  const app = new App();
  // cdk-nag's findings acknowledged, Control Tower's not.
  acknowledgeNagFindings(new IronlessStack(app, 'Unacknowledged'));
  addPolicyValidation(app);
  // Under Jest (NODE_ENV=test) CDK puts the report in the error it throws.
  const report = String(
    (() => {
      try {
        app.synth();
        return 'synthesized';
      } catch (err) {
        return (err as Error).message;
      }
    })(),
  );
  expect(report).toContain('A copy of this report can be found');
  for (const rule of ['CT.LAMBDA.PR.3', 'CT.LAMBDA.PR.2', 'CT.SQS.PR.1']) expect(report).toContain(rule);
  // What the stack fixed rather than acknowledged stays fixed: KMS-encrypted logs kept a year, DLQs that say so.
  for (const rule of ['CT.CLOUDWATCH.PR.2', 'CT.CLOUDWATCH.PR.3', 'CT.KMS.PR.3', 'CT.CLOUDWATCH.PR.1']) expect(report).not.toContain(rule);
});

it('skips only the Control Tower rules that name none of the resource types deployed', () => {
  const rules = new Map([
    ['ct-lambda-functions-pr-1', new Set(['AWS::Lambda::Function'])],
    ['ct-rds-pr-1', new Set(['AWS::RDS::DBInstance'])],
    ['ct-mixed-pr-1', new Set(['AWS::RDS::DBInstance', 'AWS::SQS::Queue'])],
    ['ct-no-type', new Set<string>()],
  ]);
  expect(inapplicableRules(new Set(['AWS::Lambda::Function', 'AWS::SQS::Queue']), rules)).toEqual(['ct-rds-pr-1']);
  // Against the real rules: those about Lambda functions stay, those about databases Ironless has none of go.
  const skipped = inapplicableRules(new Set(['AWS::Lambda::Function', 'AWS::Lambda::Permission', 'AWS::DynamoDB::GlobalTable']));
  expect(skipped).toContain('ct-rds-pr-1');
  expect(skipped).not.toContain('ct-lambda-pr-2');
  expect(skipped).not.toContain('ct-lambda-pr-3');
});
