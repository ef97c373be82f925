/**
 * `npm run smoke -- <api-url>`: the smoke scenario against a deployed stack. Exit 0 = it works.
 * With http_basic (a deployed stack's default), the credentials come from OS_USERNAME and
 * OS_PASSWORD, as the openstack client takes them.
 */
import { SmokeFailure, runSmoke } from './scenario';

const url = process.argv[2];
if (!url || url.startsWith('-')) {
  console.error('usage: npm run smoke -- <api-url>   (e.g. http://127.0.0.1:6385, or the ApiUrl output of cdk deploy)');
  process.exit(2);
}
const { OS_USERNAME: user, OS_PASSWORD: password } = process.env;
const headers = user ? { Authorization: `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}` } : undefined;
try {
  await runSmoke({ url, log: (line) => console.log(line), ...(headers ? { headers } : {}) });
} catch (err) {
  console.error(`Smoke test FAILED: ${(err as Error).message}`);
  if (/\b401\b/.test((err as Error).message) && !user)
    console.error('The API asks for credentials (http_basic): set OS_USERNAME and OS_PASSWORD to an htpasswd entry of its secret.');
  if (!(err instanceof SmokeFailure)) console.error(err);
  process.exit(1);
}
