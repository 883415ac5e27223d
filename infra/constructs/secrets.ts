import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/**
 * The telephony secret's first value: a placeholder the operator replaces with the platform's
 * provider account after the first deploy (README "Deploying to AWS"); until then whatever needs
 * the platform account answers 503, naming the secret to fill in (shared/telephony/accounts.ts).
 */
export const TELEPHONY_SECRET_PLACEHOLDER = {
  provider: 'twilio',
  account_sid: 'set-me',
  auth_token: 'set-me',
} as const;

/**
 * Secrets Manager secrets behind the `downloadLinks`, `telephony` and `encryption` access flags.
 * Functions get their ARNs and read them at run time (shared/config/secrets.ts); the spreadsheet
 * OAuth client secret holds `clientId` and `clientSecret`, set after the first deploy.
 */
export class Secrets extends Construct {
  /** HMAC key of signed download links; read at runtime through DOWNLOAD_LINK_SECRET_ARN. */
  readonly downloadLinkSecret: Secret;
  /** The platform's telephony provider account (JSON: shared/schemas/telephony.ts TelephonyCredentials); read at run time through TELEPHONY_SECRET_ARN. */
  readonly telephonySecret: Secret;
  /** HMAC key of the per-call media stream credentials (generated; functions that connect calls mint, the media service verifies; MEDIA_STREAM_SECRET_ARN). */
  readonly mediaStreamSecret: Secret;
  /** OAuth client of the hosted-spreadsheet provider. */
  readonly sheetsSecret: Secret;
  /** Encrypts stored secrets of customers (OAuth refresh tokens), with the organization as context. */
  readonly encryptionKey: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.downloadLinkSecret = new Secret(this, 'DownloadLinkSecret', {
      description: 'HMAC key that signs recording/transcript download links',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.telephonySecret = new Secret(this, 'TelephonySecret', {
      description:
        'The platform telephony provider account (JSON): {"provider":"twilio","account_sid","auth_token"} or {"provider":"telnyx","api_key","public_key","connection_id"}',
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify(TELEPHONY_SECRET_PLACEHOLDER)),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.mediaStreamSecret = new Secret(this, 'MediaStreamSecret', {
      description: 'HMAC key of the per-call media stream credentials',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.sheetsSecret = new Secret(this, 'SheetsOAuthSecret', {
      description: 'OAuth client of the hosted-spreadsheet provider: clientId and clientSecret (set by the operator)',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.encryptionKey = new Key(this, 'EncryptionKey', {
      description: 'Encrypts integration refresh tokens (encryption context: organizationId)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.sheetsSecret,
      "No automatic rotation: the OAuth client is issued by the provider and changes on the provider's side.",
      'AwsSolutions-SMG4',
    );
    acknowledge(
      this.downloadLinkSecret,
      'No automatic rotation: rotating the signing key would invalidate every outstanding download link; rotate manually.',
      'AwsSolutions-SMG4',
    );
    acknowledge(
      this.mediaStreamSecret,
      'No automatic rotation: a rotation would refuse the streams of calls ringing at that moment; rotate manually between calls.',
      'AwsSolutions-SMG4',
    );
    acknowledge(
      this.telephonySecret,
      "No automatic rotation: the values are issued by the telephony provider and change on the provider's side.",
      'AwsSolutions-SMG4',
    );
  }
}
