import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  NoSuchKey,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { s3 } from '../aws/clients.ts';
import { loadConfig } from '../config.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { RUN_FILES_PREFIX } from './bucket-layout.ts';

/** S3 layout: every file of a run under one prefix, so retention rules and deletion are per run. */
export const runFileKeys = (ref: RunRef) => {
  const prefix = `${RUN_FILES_PREFIX}org-${ref.organizationId}/agent-${ref.agentId}/run-${ref.runId}`;
  return {
    /** Everything of this run (and of no other: `run-1/` is not a prefix of `run-12/`). */
    folder: `${prefix}/`,
    recording: `${prefix}/recording.wav`,
    transcript: `${prefix}/transcript.txt`,
    // A warm transfer's message, as audio for a provider that plays a URL (Telnyx).
    whisper: `${prefix}/transfer-message.wav`,
  };
};

const bucket = () => loadConfig().bucketName;

export async function putRunFile(key: string, body: Buffer | string, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
}

/**
 * Uploads a local file as it is read from disk (a call's recording: never whole in memory). Its
 * CRC32 is computed first, in a pass over the file, and sent as the checksum S3 verifies: the SDK
 * would otherwise send a stream of unknown checksum as `aws-chunked` with a trailing checksum.
 */
export async function putRunFileFromDisk(key: string, path: string, bytes: number, contentType: string): Promise<void> {
  let crc = 0;
  for await (const chunk of createReadStream(path)) crc = crc32(chunk as Buffer, crc);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc >>> 0);
  // The SDK retries no request whose body is a stream (it cannot read it again): each attempt
  // here reads the file anew, through a descriptor of its own that the attempt closes whether or
  // not the request read it (a failed attempt leaves no open file behind).
  for (let attempt = 1; ; attempt += 1) {
    const file = await open(path);
    try {
      await s3().send(
        new PutObjectCommand({
          Bucket: bucket(),
          Key: key,
          Body: file.createReadStream({ autoClose: false }),
          ContentLength: bytes,
          ContentType: contentType,
          ChecksumCRC32: checksum.toString('base64'),
        }),
      );
      return;
    } catch (error) {
      if (attempt >= DISK_UPLOAD_ATTEMPTS) throw error;
      await sleep(200 * attempt);
    } finally {
      await file.close();
    }
  }
}

/** Attempts at a recording's upload from disk. */
const DISK_UPLOAD_ATTEMPTS = 3;

/** The file's text, or undefined when it does not exist (never saved, or deleted by retention). */
export async function readRunFileText(key: string): Promise<string | undefined> {
  const bytes = await readRunFile(key);
  return bytes?.toString('utf8');
}

/** The file, or undefined when it does not exist (never saved, or deleted by retention). */
export async function readRunFile(key: string): Promise<Buffer | undefined> {
  try {
    const result = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return Buffer.from(await result.Body!.transformToByteArray());
  } catch (error) {
    if (error instanceof NoSuchKey || error instanceof NotFound) return undefined;
    throw error;
  }
}

export async function runFileExists(key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return true;
  } catch (error) {
    if (error instanceof NotFound || error instanceof NoSuchKey) return false;
    throw error;
  }
}

/** The keys of every object under `prefix`, a listing page (up to 1,000) at a time. */
export async function* listRunFiles(prefix: string): AsyncGenerator<string[]> {
  let token: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, ContinuationToken: token }),
    );
    const found = (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
    if (found.length) yield found;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** Deletes the objects (a missing one is no error, so a repeated deletion succeeds), 1,000 per request. */
export async function deleteRunFiles(keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    const result = await s3().send(
      new DeleteObjectsCommand({ Bucket: bucket(), Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }),
    );
    if (result.Errors?.length)
      throw new Error(
        `Could not delete ${result.Errors.map((error) => error.Key).join(', ')}: ${result.Errors[0]?.Message}`,
      );
  }
}

/** A presigned GET valid for `seconds`: what a download link redirects to. */
export function presignedRunFileUrl(key: string, contentType: string, seconds: number): Promise<string> {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucket(), Key: key, ResponseContentType: contentType }), {
    expiresIn: seconds,
  });
}
