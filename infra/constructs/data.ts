import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { MEDIA_BUCKET_CORS } from '../media-bucket-cors.ts';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../shared/repositories/table-schema.ts';
import {
  CAMPAIGN_REPORT_DAYS,
  CAMPAIGN_REPORTS_PREFIX,
  RUN_FILES_PREFIX,
} from '../../shared/repositories/bucket-layout.ts';

/** Recordings and transcripts are deleted after this many days unless context `retentionDays` says otherwise. */
export const DEFAULT_RETENTION_DAYS = 90;

export interface DataProps {
  /** Days a run's files (recordings, transcripts, under `runs/`) stay in the bucket. */
  retentionDays?: number;
}

/** The single DynamoDB table and the media bucket (with its access-log bucket). */
export class Data extends Construct {
  readonly table: Table;
  readonly bucket: Bucket;
  readonly logsBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    const retentionDays = props.retentionDays ?? DEFAULT_RETENTION_DAYS;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      // Customer data outlives the stack: deleting the stack must not delete it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
      });
    }

    this.logsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(retentionDays) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'MediaBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 'media-bucket/',
      cors: [
        {
          allowedMethods: MEDIA_BUCKET_CORS.allowedMethods.map((method) => HttpMethods[method]),
          allowedOrigins: [...MEDIA_BUCKET_CORS.allowedOrigins],
          allowedHeaders: [...MEDIA_BUCKET_CORS.allowedHeaders],
          maxAge: MEDIA_BUCKET_CORS.maxAgeSeconds,
        },
      ],
      lifecycleRules: [
        // Retention applies to calls' files only: knowledge-base originals and campaign imports stay.
        { id: 'expire-recordings', prefix: RUN_FILES_PREFIX, expiration: Duration.days(retentionDays) },
        // A large campaign report is a copy of its contacts' call results, served by a link that lives
        // an hour: it goes after a day, so a deleted call's content does not outlive it there.
        {
          id: 'expire-campaign-reports',
          prefix: CAMPAIGN_REPORTS_PREFIX,
          expiration: Duration.days(CAMPAIGN_REPORT_DAYS),
        },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
