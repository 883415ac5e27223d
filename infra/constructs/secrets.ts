import { RemovalPolicy } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/** JSON keys of the telephony secret; set `apiKey` (and the provider's webhook secret) after the first deploy. */
export const TELEPHONY_SECRET_KEYS = { apiKey: 'apiKey', webhookSecret: 'webhookSecret' } as const;

/** Secrets Manager secrets behind the `downloadLinks` and `telephony` access flags. */
export class Secrets extends Construct {
  /** HMAC key of signed download links; read at runtime through DOWNLOAD_LINK_SECRET_ARN. */
  readonly downloadLinkSecret: Secret;
  /** Telephony provider API key and callback signing secret. */
  readonly telephonySecret: Secret;

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
