/** `npm run smoke -- <api-url>`: the smoke scenario against a deployed stack. Exit 0 = it works. */
import { SmokeFailure, runSmoke } from './scenario';

const url = process.argv[2];
if (!url || url.startsWith('-')) {
  console.error('usage: npm run smoke -- <api-url>   (e.g. http://127.0.0.1:6385, or the ApiUrl output of cdk deploy)');
  process.exit(2);
}
try {
  await runSmoke({ url, log: (line) => console.log(line) });
} catch (err) {
  console.error(`Smoke test FAILED: ${(err as Error).message}`);
  if (!(err instanceof SmokeFailure)) console.error(err);
  process.exit(1);
}
