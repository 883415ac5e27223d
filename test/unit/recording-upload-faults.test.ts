import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Fault paths of a recording's upload from the media task's disk: the SDK retries no request
// whose body is a stream, so a dropped connection would lose the recording (and, before, leave
// the run in progress). The whole upload runs against s3rver in the integration tests.
const s3 = mockClient(S3Client);
let dir: string;
let file: string;

beforeAll(async () => {
  Object.assign(process.env, { TABLE_NAME: 'test-table', BUCKET_NAME: 'test-bucket', AWS_REGION: 'us-east-1' });
  dir = await mkdtemp(join(tmpdir(), 'recording-upload-'));
  file = join(dir, 'recording.wav');
  await writeFile(file, Buffer.alloc(3200, 0x7f));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => s3.reset());

/** How many of this process's descriptors are open on the recording (Linux's /proc). */
const descriptorsOnFile = async () => {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target === file).length;
};

const reset = () => Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });

describe('putRunFileFromDisk', () => {
  it('reads the file anew for another attempt when the connection drops', async () => {
    const { putRunFileFromDisk } = await import('../../shared/repositories/run-files.ts');
    s3.on(PutObjectCommand).rejectsOnce(reset()).resolves({});
    await putRunFileFromDisk('runs/org-1/agent-2/run-3/recording.wav', file, 3200, 'audio/wav');
    const calls = s3.commandCalls(PutObjectCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.args[0].input.Body).not.toBe(calls[1]!.args[0].input.Body);
    expect(calls[1]!.args[0].input).toMatchObject({ ContentLength: 3200, ContentType: 'audio/wav' });
  });

  it('gives up after three attempts with the last error', async () => {
    const { putRunFileFromDisk } = await import('../../shared/repositories/run-files.ts');
    s3.on(PutObjectCommand).rejects(reset());
    await expect(putRunFileFromDisk('runs/org-1/agent-2/run-3/recording.wav', file, 3200, 'audio/wav')).rejects.toThrow(
      'socket hang up',
    );
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(3);
    // Each attempt's file is closed though no request read it (it was left open, then opened
    // after the folder was gone: an uncaught ENOENT in the next file).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await descriptorsOnFile()).toBe(0);
  });
});
