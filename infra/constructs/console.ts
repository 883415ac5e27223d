import { DefaultStackSynthesizer, DockerImage, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { AssetHashType } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_PREFIX } from '../../shared/api/route.ts';
import { consoleFiles, contentSecurityPolicy } from '../console-site.ts';
import { REPO_ROOT } from '../paths.ts';
import { acknowledge } from '../nag.ts';

/** The CDK asset bucket's objects as cdk-nag names them: pseudo parameters, or literals in a stack with an environment. */
function assetBucketObjects(stack: Stack): string {
  const named = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
  return `arn:${named(stack.partition, 'AWS::Partition')}:s3:::cdk-${stack.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${named(stack.account, 'AWS::AccountId')}-${named(stack.region, 'AWS::Region')}/*`;
}

/**
 * The console on AWS: its built files in a private bucket, served by CloudFront with a strict
 * Content-Security-Policy; the same distribution passes `/api/v1/*` to the API's stage (no cache,
 * every header but Host), so the console calls the API on its own origin, as it does locally, and
 * the API needs no CORS. The API's WAF, authorizer and usage plans still see every request.
 */
export class ConsoleSite extends Construct {
  readonly distribution: Distribution;
  readonly url: string;

  constructor(scope: Construct, id: string, props: { api: RestApi }) {
    super(scope, id);
    const files = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Only built files, written again by every deployment.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: "The console's Content-Security-Policy and security headers",
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy('deployed'), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Voice agent platform console',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(files),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        // Files keep their names between deployments; each deployment invalidates them.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      },
      additionalBehaviors: {
        [`${API_PREFIX}/*`]: {
          origin: new RestApiOrigin(props.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}/`;

    new BucketDeployment(this, 'Deployment', {
      sources: [
        Source.asset(join(REPO_ROOT, 'web/console'), {
          // Hashed by what is built, not by the source folder (the bundle also holds node_modules code).
          assetHashType: AssetHashType.OUTPUT,
          bundling: {
            image: DockerImage.fromRegistry('unused-the-console-is-built-locally'),
            local: {
              tryBundle(outputDir) {
                for (const [name, file] of consoleFiles({ sourceMaps: false }))
                  writeFileSync(join(outputDir, name), file.body);
                return true;
              },
            },
          },
        }),
      ],
      destinationBucket: files,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
    });

    acknowledge(
      files,
      'Holds only the built console, written by each deployment and read by CloudFront; API requests are logged by the API stage.',
      'AwsSolutions-S1',
    );
    acknowledge(
      this.distribution,
      'The console is a public sign-in page for organizations worldwide; the API behind /api/v1 has its own regional web ACL, authorizer and usage plans.',
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
    );
    acknowledge(
      this.distribution,
      'Static files of the console; every API request through it is written to the API stage access log.',
      'AwsSolutions-CFR3',
    );
    acknowledge(
      this.distribution,
      'The default *.cloudfront.net certificate (no custom domain); put a custom domain with TLSv1.2_2021 in front for a branded console.',
      'AwsSolutions-CFR4',
    );
    // The deployment's Lambda comes from aws-s3-deployment (its runtime and role are the library's).
    const deployer = Stack.of(this)
      .node.findAll()
      .filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    acknowledge(
      deployer,
      "aws-s3-deployment's own function: its runtime, logging policy and settings are the library's; it runs only while the stack deploys.",
      'AwsSolutions-L1',
      // A pseudo parameter, not a value of the parent stack: written out rather than flattened.
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'Serverless-LambdaDLQ',
      'Serverless-LambdaLatestVersion',
      'Serverless-LambdaTracing',
    );
    acknowledge(
      deployer,
      'aws-s3-deployment copies the built console from the CDK asset bucket into this one and invalidates the distribution (CloudFront invalidations take no resource).',
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
        (action) => `AwsSolutions-IAM5[Action::${action}]`,
      ),
      `AwsSolutions-IAM5[Resource::${assetBucketObjects(Stack.of(this))}]`,
      `AwsSolutions-IAM5[Resource::<${Stack.of(files).getLogicalId(files.node.defaultChild as CfnBucket)}.Arn>/*]`,
      'AwsSolutions-IAM5[Resource::*]',
    );
  }
}
