import { S3Client } from '@aws-sdk/client-s3';

/** A request the stub received: the command's name and input, and a PutObject's body (a stream or bytes) read whole. */
export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
  body?: Buffer;
}

/**
 * A real S3 client (it presigns locally) whose requests are recorded instead of sent; every
 * request fails with `fail` when given.
 */
export function stubS3(fail?: Error): { client: S3Client; sent: SentCommand[] } {
  const sent: SentCommand[] = [];
  const client = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
  Object.assign(client, {
    async send(command: { constructor: { name: string }; input: Record<string, unknown> }) {
      if (fail) throw fail;
      const entry: SentCommand = { name: command.constructor.name, input: command.input };
      if (command.input.Body instanceof Uint8Array) {
        entry.body = Buffer.from(command.input.Body);
      } else if (command.input.Body) {
        const chunks: Buffer[] = [];
        for await (const c of command.input.Body as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
        entry.body = Buffer.concat(chunks);
      }
      sent.push(entry);
      return {};
    },
  });
  return { client, sent };
}
