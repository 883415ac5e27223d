import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';
import { mediaBucketCorsXml } from '../../infra/media-bucket-cors.ts';

export interface S3Local {
  endpoint: string;
  stop: () => Promise<void>;
}

/** Starts s3rver, an S3 emulator keeping objects as files under `directory`. */
export async function startS3Local(options: { directory: string; bucketName: string }): Promise<S3Local> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: options.directory,
    configureBuckets: [{ name: options.bucketName, configs: [mediaBucketCorsXml()] }],
  });
  const address = await server.run();
  return { endpoint: `http://127.0.0.1:${address.port}`, stop: () => server.close() };
}
