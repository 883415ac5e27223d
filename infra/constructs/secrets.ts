import { RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/** JSON keys of the telephony secret; set `apiKey` (and the provider's webhook secret) after the first deploy. */
export const TELEPHONY_SECRET_KEYS = { apiKey: 'apiKey', webhookSecret: 'webhookSecret' } as const;

/**
 * Secrets Manager secrets behind the `downloadLinks`, `telephony` and `encryption` access flags.
 * Functions get their ARNs and read them at run time (shared/config/secrets.ts); the spreadsheet
 * OAuth client secret holds `clientId` and `clientSecret`, set after the first deploy.
 */
export class Secrets extends Construct {
  /** HMAC key of signed download links; read at runtime through DOWNLOAD_LINK_SECRET_ARN. */
  readonly downloadLinkSecret: Secret;
  /** Telephony provider API key and callback signing secret. */
  readonly telephonySecret: Secret;
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
      description: 'Telephony provider credentials: apiKey (set by the operator) and webhookSecret',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ [TELEPHONY_SECRET_KEYS.apiKey]: 'set-me' }),
        generateStringKey: TELEPHONY_SECRET_KEYS.webhookSecret,
        passwordLength: 48,
        excludePunctuation: true,
      },
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
    acknowledge(this.sheetsSecret, "No automatic rotation: the OAuth client is issued by the provider and changes on the provider's side.", 'AwsSolutions-SMG4');
    acknowledge(
      this.downloadLinkSecret,
      'No automatic rotation: rotating the signing key would invalidate every outstanding download link; rotate manually.',
      'AwsSolutions-SMG4',
    );
    acknowledge(
      this.telephonySecret,
      "No automatic rotation: the values are issued by the telephony provider and change on the provider's side.",
      'AwsSolutions-SMG4',
    );
  }
}
