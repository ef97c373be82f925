/**
 * Ironic's `[agent]api_ca_file` for both stacks: the PEM of the CA that signed the API's TLS
 * certificate, read from the deployer's machine when the stack is synthesized (or the local stack
 * starts) and put in the conductor's code as `AGENT_API_CA_BUNDLE_PATH`, which the variable
 * `AGENT_API_CA_FILE` names. The conductor copies it onto the agent ISOs it builds
 * (functions/drivers/redfish/boot-iso.ts).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AGENT_API_CA_BUNDLE_PATH, ENV } from '../functions/common/config';

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/** What an agent ISO must never carry: every node that boots it could read it. */
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * Read and check the file: readable, at least one PEM certificate, every one of them a certificate
 * Node can parse, and no private key. The error names the file and what to do.
 */
export function readAgentApiCaFile(path: string): Buffer {
  const what = `agentApiCaFile (Ironic's [agent]api_ca_file) "${path}"`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new Error(
      `${what} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): give the path of a PEM file holding the CA certificate(s) of the API's TLS certificate`,
    );
  }
  const text = bytes.toString('utf8');
  if (PRIVATE_KEY.test(text)) {
    throw new Error(`${what} holds a private key: it is copied onto every agent ISO, so give a file with the CA certificate(s) only`);
  }
  const blocks = text.match(CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    throw new Error(
      `${what} holds no PEM certificate (a "-----BEGIN CERTIFICATE-----" block): give the CA certificate(s) of the API's TLS certificate in PEM`,
    );
  }
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new Error(`${what}: certificate ${i + 1} of ${blocks.length} cannot be parsed (${(err as Error).message})`);
    }
  });
  return bytes;
}

/** What the conductor's code and environment get for the setting: the file in its code, the variable naming it. */
export function agentApiCaForConductor(path: string | undefined): {
  readonly files: Readonly<Record<string, Buffer>>;
  readonly environment: Readonly<Record<string, string>>;
} {
  if (path === undefined) return { files: {}, environment: {} };
  return {
    files: { [AGENT_API_CA_BUNDLE_PATH]: readAgentApiCaFile(path) },
    environment: { [ENV.agentApiCaFile]: AGENT_API_CA_BUNDLE_PATH },
  };
}
