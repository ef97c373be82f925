/** http_basic as ironic-lib's auth_basic middleware does it: header parsing, htpasswd entries, bcrypt. */
import bcrypt from 'bcryptjs';
import { AuthFailure, HtpasswdError, authenticate, parseHeader, parseHtpasswd, parseToken } from '../../../functions/authorizer/basic';
import { isPublicPath } from '../../../functions/authorizer/gateway';
import { stageResources } from '../../../functions/authorizer/stage';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
// htpasswd -nB writes $2y$ digests; bcryptjs writes $2b$; both must verify.
const entries = parseHtpasswd(
  [
    `admin:${bcrypt.hashSync('secret', 4).replace(/^\$2b\$/, '$2y$')}`,
    '',
    'comment line without colon',
    `ops:${bcrypt.hashSync('p:w', 4)}`,
  ].join('\n'),
);

async function failure(header: string | undefined): Promise<[number, string]> {
  try {
    await authenticate(entries, header);
  } catch (err) {
    if (err instanceof AuthFailure) return [err.status, err.message];
    throw err;
  }
  throw new Error('authenticated');
}

describe('authenticate', () => {
  it('accepts matching credentials ($2y$ and $2b$ digests; a password may hold ":")', async () => {
    await expect(authenticate(entries, basic('admin', 'secret'))).resolves.toBe('admin');
    await expect(authenticate(entries, basic('ops', 'p:w'))).resolves.toBe('ops');
    await expect(authenticate(entries, `  basic   ${Buffer.from('admin:secret').toString('base64')}`)).resolves.toBe('admin');
  });

  it('refuses with ironic-lib statuses and messages', async () => {
    expect(await failure(undefined)).toEqual([401, 'Authorization required']);
    expect(await failure(basic('admin', 'wrong'))).toEqual([401, 'Incorrect username or password']);
    expect(await failure(basic('nobody', 'secret'))).toEqual([401, 'Incorrect username or password']);
    expect(await failure('Basic')).toEqual([400, 'Could not parse Authorization header']);
    expect(await failure('Bearer abc')).toEqual([400, 'Unsupported authorization type "Bearer"']);
    expect(await failure('Basic !!!')).toEqual([400, 'Could not decode authorization token']);
    expect(await failure(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toEqual([400, 'Could not decode authorization token']);
  });

  it('parses header and token as ironic-lib does', () => {
    expect(parseHeader('Basic dTpw')).toBe('dTpw');
    expect(parseToken('dTpw')).toEqual({ user: 'u', password: 'p' });
  });
});

describe('htpasswd entries', () => {
  it('allow bcrypt digests only, naming the user', () => {
    expect(() => parseHtpasswd('bob:{SHA}abc')).toThrow(HtpasswdError);
    expect(() => parseHtpasswd('bob:{SHA}abc')).toThrow('Only bcrypt digested passwords are supported for bob');
  });
});

describe('public routes', () => {
  it('are Ironic’s: /, /v1, lookup, heartbeat and continue_inspection (with a trailing slash or .json)', () => {
    for (const p of [
      '/',
      '/v1',
      '/v1/',
      '/v1.json',
      '/v1/lookup',
      '/v1/heartbeat/abc-1',
      '/v1/heartbeat/x.json',
      '/v1/continue_inspection',
    ])
      expect([p, isPublicPath(p)]).toEqual([p, true]);
    for (const p of ['/v1/nodes', '/v1/heartbeat', '/v1/lookup/x', '/nodes', '/v1/heartbeat/a/b', '/v1/continue_inspection/x'])
      expect([p, isPublicPath(p)]).toEqual([p, false]);
  });
});

describe('the authorizer policy', () => {
  it('covers every method and path of the stage (decisions are cached per header)', () => {
    expect(stageResources('arn:aws:execute-api:us-east-1:123456789012:abc123/ironless/GET/v1/nodes')).toBe(
      'arn:aws:execute-api:us-east-1:123456789012:abc123/ironless/*/*',
    );
  });
});
