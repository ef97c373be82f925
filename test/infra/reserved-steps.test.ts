/**
 * The reserved `wait` step's maximum (Ironic `[conductor]max_conductor_wait_step_seconds`) reaches
 * the conductor from the settings, and must fit within one synchronous step.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';

const template = Template.fromStack(new IronlessStack(new App(), 'Waits', { settings: { maxWaitStepSeconds: 12 } }));

it('tells the conductor the longest a wait step may pause', () => {
  template.hasResourceProperties('AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp('^Ironless conductor'),
    Environment: { Variables: Match.objectLike({ MAX_CONDUCTOR_WAIT_STEP_SECONDS: '12' }) },
  });
});

it('refuses a wait maximum a synchronous step could not sleep through', () => {
  expect(() => new IronlessStack(new App(), 'LongWait', { settings: { maxWaitStepSeconds: 100 } })).toThrow(
    'maxWaitStepSeconds (100) must be at least 0 and less than stepTimeoutSeconds (100)',
  );
});
