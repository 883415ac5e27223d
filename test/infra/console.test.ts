/**
 * The console on AWS: CloudFront serves the built console from a private bucket with a strict
 * Content-Security-Policy and passes /api/v1/* to the API's stage, so the console calls the API on
 * its own origin; the files deployed are the ones the local stack serves.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleFiles, contentSecurityPolicy } from '../../infra/console-site.ts';
import { ConsoleSite } from '../../infra/constructs/console.ts';
import { createApp } from '../../infra/create-app.ts';
import type { VoiceAgentPlatformApiStack } from '../../infra/stack.ts';

let stack: VoiceAgentPlatformApiStack;
let site: Template;

beforeAll(() => {
  // Templates read, no output changed: stack.test.ts runs aws-cdk-lib's own validation.
  ({ stack } = createApp({ context: { 'aws:cdk:bundling-stacks': [] }, cloudFormationValidation: false }));
  site = Template.fromStack(Stack.of(stack.console));
});

// CloudFront's managed policies, by their fixed ids.
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe('the console on AWS', () => {
  it('serves the bucket privately through CloudFront (origin access control), HTTPS only, index.html at /', () => {
    site.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    site.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    site.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } }),
        ]),
      },
    });
    site.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
      }),
    });
  });

  it('passes /api/v1/* to the API stage uncached with the caller’s headers (the X-API-Key), so no CORS is needed', () => {
    const distribution = Object.values(site.findResources('AWS::CloudFront::Distribution'))[0]!;
    const config = distribution.Properties.DistributionConfig;
    const [api] = config.CacheBehaviors;
    expect(config.CacheBehaviors).toHaveLength(1);
    expect(api).toMatchObject({
      PathPattern: '/api/v1/*',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: 'https-only',
    });
    const origin = config.Origins.find((candidate: { Id: string }) => candidate.Id === api.TargetOriginId);
    // The stage is the origin path: /api/v1/agents reaches <stage>/api/v1/agents.
    expect(JSON.stringify(origin.DomainName)).toContain('execute-api');
    expect(JSON.stringify(origin.OriginPath)).toMatch(/\/|Stage/);
  });

  it('sends a strict Content-Security-Policy (no inline script or style, no framing) and HSTS with every page', () => {
    const policy = contentSecurityPolicy('deployed');
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('127.0.0.1');
    site.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: policy, Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 31_536_000, Override: true }),
        }),
      }),
    });
    const distribution = Object.values(site.findResources('AWS::CloudFront::Distribution'))[0]!;
    expect(distribution.Properties.DistributionConfig.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({
      Ref: expect.stringMatching(/SecurityHeaders/),
    });
  });

  it('deploys the built console into the bucket and invalidates the distribution; the stack outputs its URL', () => {
    site.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: Match.stringLikeRegexp('SiteFiles') },
      DistributionId: { Ref: Match.stringLikeRegexp('SiteDistribution') },
      DistributionPaths: ['/*'],
    });
    Template.fromStack(stack).hasOutput('ConsoleUrl', {});
    const files = consoleFiles({ sourceMaps: false });
    expect([...files.keys()].sort()).toEqual(['console.css', 'console.js', 'index.html', 'uplot.css', 'xyflow.css']);
    // Every file the page loads is deployed; no source map leaks the sources.
    const html = files.get('index.html')!.body.toString();
    for (const [, name] of html.matchAll(/(?:src|href)="([^"#]+\.(?:js|css))"/g)) expect(files.has(name!)).toBe(true);
    expect(files.get('console.js')!.body.toString()).not.toContain('sourceMappingURL');
  });

  it('builds the console into the deployment asset when the stack synthesizes (no Docker: esbuild in process)', () => {
    const app = new App({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'ConsoleOnly');
    const api = new RestApi(stack, 'Api');
    api.root.addMethod('GET', new MockIntegration());
    new ConsoleSite(stack, 'Site', { api });
    const out = app.synth().directory;
    const assets = readdirSync(out)
      .map((name) => join(out, name))
      .filter((path) => statSync(path).isDirectory() && readdirSync(path).includes('index.html'));
    expect(assets).toHaveLength(1);
    expect(readdirSync(assets[0]!).sort()).toEqual([...consoleFiles({ sourceMaps: false }).keys()].sort());
    expect(readFileSync(join(assets[0]!, 'index.html'), 'utf8')).toContain('console.js');
  });
});
