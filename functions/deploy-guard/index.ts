/**
 * The deploy guard function (`guard.ts` decides; this file gives it AWS): the onEvent handler of
 * the stack's deploy-gate and live-version custom resources, called by CDK's Provider framework.
 */
import { CloudFormationClient, DescribeStackResourceCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetAliasCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListTagsCommand,
  PublishVersionCommand,
  TagResourceCommand,
} from '@aws-sdk/client-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { type GuardEvent, type GuardPorts, type GuardResult, onEvent } from './guard';

const log = new Logger({ serviceName: 'ironless-deploy-guard' });
const cloudformation = new CloudFormationClient({});
const lambda = new LambdaClient({});

/** How long `$LATEST` may take to finish an update (a VPC function's first one takes a while) before it is published. */
const READY_TIMEOUT_MS = 5 * 60_000;

function errorName(err: unknown): string {
  return (err as { name?: string }).name ?? '';
}

/** The ports, with function ARNs built beside this function's own (same partition, region, account). */
export function awsPorts(ownArn: string): GuardPorts {
  const [, partition, , region, account] = ownArn.split(':');
  const arnOf = (name: string) => (name.startsWith('arn:') ? name : `arn:${partition}:lambda:${region}:${account}:function:${name}`);
  return {
    async stackStatus(stackId) {
      const out = await cloudformation.send(new DescribeStacksCommand({ StackName: stackId }));
      return out.Stacks?.[0]?.StackStatus;
    },
    async physicalResourceId(stackId, logicalId) {
      try {
        const out = await cloudformation.send(new DescribeStackResourceCommand({ StackName: stackId, LogicalResourceId: logicalId }));
        return out.StackResourceDetail?.PhysicalResourceId || undefined;
      } catch (err) {
        if (errorName(err) === 'ValidationError') return undefined; // "Resource … does not exist for stack …"
        throw err;
      }
    },
    async listTags(functionName) {
      try {
        return (await lambda.send(new ListTagsCommand({ Resource: arnOf(functionName) }))).Tags ?? {};
      } catch (err) {
        if (errorName(err) === 'AccessDeniedException') return 'denied';
        throw err;
      }
    },
    async tag(functionName, tags) {
      await lambda.send(new TagResourceCommand({ Resource: arnOf(functionName), Tags: { ...tags } }));
    },
    async aliasVersion(functionName, alias) {
      try {
        return (await lambda.send(new GetAliasCommand({ FunctionName: functionName, Name: alias }))).FunctionVersion;
      } catch (err) {
        if (errorName(err) === 'ResourceNotFoundException') return undefined;
        throw err;
      }
    },
    async publishVersion(functionName, description) {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      for (;;) {
        const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
        if (config.State === 'Failed' || config.LastUpdateStatus === 'Failed')
          throw new Error(
            `Function ${functionName} cannot be published: ${config.StateReason ?? config.LastUpdateStatusReason ?? 'failed'}`,
          );
        if (config.State === 'Active' && config.LastUpdateStatus !== 'InProgress') break;
        if (Date.now() > deadline) throw new Error(`Function ${functionName} was not ready to publish within ${READY_TIMEOUT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      const out = await lambda.send(new PublishVersionCommand({ FunctionName: functionName, Description: description.slice(0, 256) }));
      if (out.Version === undefined) throw new Error(`PublishVersion of ${functionName} answered no version`);
      return out.Version;
    },
    log(message, details) {
      log.info(message, details ?? {});
    },
  };
}

export async function handler(event: GuardEvent, context: Context): Promise<GuardResult> {
  log.info('request', { requestType: event.RequestType, logicalId: event.LogicalResourceId, properties: event.ResourceProperties });
  return onEvent(event, awsPorts(context.invokedFunctionArn));
}
