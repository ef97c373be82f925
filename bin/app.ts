#!/usr/bin/env -S node --import tsx
/**
 * The CDK app: one Ironless stack, checked on every synth by cdk-nag's AWS Solutions pack and by
 * AWS Control Tower's proactive controls (cfn-guard). Security and operations choices come from
 * CDK context (`-c authStrategy=…`, see lib/app-context.ts) or from props set here.
 */
import { App } from 'aws-cdk-lib';
import { propsFromContext } from '../lib/app-context';
import { IronlessStack } from '../lib/ironless-stack';
import { acknowledgeFindings, addPolicyValidation } from '../lib/nag';

const app = new App();
const stack = new IronlessStack(app, 'Ironless', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  ...propsFromContext(app.node),
});
acknowledgeFindings(stack);
addPolicyValidation(app, { verbose: true });
