#!/usr/bin/env -S node --import tsx
/** The CDK app: one Ironless stack, checked by cdk-nag's AWS Solutions pack on every synth. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IronlessStack } from '../lib/ironless-stack';
import { acknowledgeNagFindings } from '../lib/nag';

const app = new App();
const stack = new IronlessStack(app, 'Ironless', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
acknowledgeNagFindings(stack);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
