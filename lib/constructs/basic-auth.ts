/**
 * Ironic's `http_basic` auth strategy on API Gateway: a REQUEST authorizer (the `authorizer`
 * function) checking the Authorization header against htpasswd entries kept in a Secrets Manager
 * secret, its decisions cached per header, and the gateway responses that answer refusals in
 * ironic-lib's form with the `WWW-Authenticate: Basic` challenge. The function may read that one
 * secret and nothing else.
 *
 * Revocation: API Gateway reuses a decision for `cacheSeconds` (per Authorization header) and the
 * function reuses the entries it read for `refreshSeconds`, so a password removed from the secret is
 * refused at the latest `cacheSeconds + refreshSeconds` later.
 */
import { Duration } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer, ResponseType, type RestApiBase } from 'aws-cdk-lib/aws-apigateway';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { AUTH_GATEWAY_RESPONSES, IDENTITY_HEADER } from '../../functions/authorizer/gateway';
import { ENV } from '../../functions/common/config';
import { IronlessFunction } from './function';

export interface BasicAuthProps {
  /**
   * The secret holding the htpasswd entries (`user:$2y$…` lines, bcrypt only).
   * @default a new secret with no valid entry: set its value before anyone can log in
   */
  readonly secret?: ISecret;
  /** How long API Gateway caches a decision per Authorization header (0: not cached). */
  readonly cacheSeconds: number;
  /** How long the function reuses the entries it read before reading the secret again. */
  readonly refreshSeconds: number;
  /**
   * Concurrency reserved for (and capping) the authorizer: a flood of guessed passwords, each a
   * bcrypt check, stops there instead of taking the account's concurrency from the conductor.
   * @default unreserved
   */
  readonly reservedConcurrency?: number;
  readonly logRetention?: RetentionDays;
  readonly logsKey?: IKey;
}

export class BasicAuth extends Construct {
  readonly secret: ISecret;
  readonly function: IronlessFunction;
  readonly authorizer: RequestAuthorizer;

  constructor(scope: Construct, id: string, props: BasicAuthProps) {
    super(scope, id);
    this.secret =
      props.secret ??
      new Secret(this, 'Htpasswd', {
        description: 'Ironless http_basic: htpasswd entries (bcrypt); replace this value with yours',
        generateSecretString: { excludePunctuation: true, passwordLength: 32 },
      });
    this.function = new IronlessFunction(this, 'Authorizer', {
      name: 'authorizer',
      timeout: Duration.seconds(10),
      memorySize: 512,
      environment: { HTPASSWD_SECRET_ID: this.secret.secretArn, [ENV.htpasswdRefreshSeconds]: String(props.refreshSeconds) },
      reservedConcurrentExecutions: props.reservedConcurrency,
      logRetention: props.logRetention,
      logsKey: props.logsKey,
    });
    this.secret.grantRead(this.function.function);
    this.authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.function.live,
      identitySources: [IdentitySource.header(IDENTITY_HEADER)],
      resultsCacheTtl: Duration.seconds(props.cacheSeconds),
    });
  }

  /** Answer refusals as ironic-lib does (401, its body, the Basic challenge). */
  addGatewayResponses(api: RestApiBase): void {
    for (const [type, spec] of Object.entries(AUTH_GATEWAY_RESPONSES)) {
      api.addGatewayResponse(`Auth${type}`, {
        type: type === 'UNAUTHORIZED' ? ResponseType.UNAUTHORIZED : ResponseType.ACCESS_DENIED,
        statusCode: String(spec.status),
        responseHeaders: Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, `'${v}'`])),
        templates: { 'application/json': spec.template },
      });
    }
  }
}
