/**
 * The media bucket's CORS rule, for the stack and the local bucket emulator alike: read-only, any
 * origin. A page on another origin (the console) reads a large report through its presigned link,
 * at the end of the API's redirects; the presigned URL is the credential.
 */
export const MEDIA_BUCKET_CORS = {
  allowedMethods: ['GET', 'HEAD'],
  allowedOrigins: ['*'],
  allowedHeaders: ['*'],
  maxAgeSeconds: 600,
} as const;

/** The rule as S3's CORSConfiguration document (what s3rver reads). */
export const mediaBucketCorsXml = (): string =>
  [
    '<CORSConfiguration><CORSRule>',
    ...MEDIA_BUCKET_CORS.allowedOrigins.map((origin) => `<AllowedOrigin>${origin}</AllowedOrigin>`),
    ...MEDIA_BUCKET_CORS.allowedMethods.map((method) => `<AllowedMethod>${method}</AllowedMethod>`),
    ...MEDIA_BUCKET_CORS.allowedHeaders.map((header) => `<AllowedHeader>${header}</AllowedHeader>`),
    `<MaxAgeSeconds>${MEDIA_BUCKET_CORS.maxAgeSeconds}</MaxAgeSeconds>`,
    '</CORSRule></CORSConfiguration>',
  ].join('');
