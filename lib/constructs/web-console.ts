/**
 * The web console on AWS: its files served by the `ui` function under `/ui` of the API itself,
 * without the authorizer (the files hold no data; the page asks for credentials and sends them
 * with every API request it makes, so the API's own authentication guards everything it shows).
 *
 * NOTE: served from the API rather than from S3 behind CloudFront: the page and the API share one
 * origin (no CORS, no second domain or certificate), it works unchanged with a PRIVATE endpoint
 * (CloudFront cannot reach one), and the files are a single ~100 KB bundle, built with the
 * functions, so no bucket deployment has to be kept in step with the API's release.
 */
import { Duration } from 'aws-cdk-lib';
import { LambdaIntegration, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { UI_PATH } from '../../functions/ui/serve';
import { IronlessFunction, type IronlessFunctionProps } from './function';

export interface WebConsoleProps {
  /** The API whose root gets the `/ui` resources. */
  readonly api: RestApi;
  /** The function's log retention and key, as every function of the stack has them. */
  readonly logRetention?: IronlessFunctionProps['logRetention'];
  readonly logsKey?: IronlessFunctionProps['logsKey'];
}

export class WebConsole extends Construct {
  readonly function: IronlessFunction;

  constructor(scope: Construct, id: string, props: WebConsoleProps) {
    super(scope, id);
    this.function = new IronlessFunction(this, 'Files', {
      name: 'ui',
      timeout: Duration.seconds(10),
      memorySize: 256,
      environment: {},
      ...(props.logRetention !== undefined ? { logRetention: props.logRetention } : {}),
      ...(props.logsKey !== undefined ? { logsKey: props.logsKey } : {}),
    });
    const integration = new LambdaIntegration(this.function.live);
    const ui = props.api.root.addResource(UI_PATH.slice(1));
    ui.addMethod('GET', integration);
    ui.addResource('{proxy+}').addMethod('GET', integration);
  }
}
