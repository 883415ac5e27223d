import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../infra/create-app.ts';
import { DEFAULT_RETENTION_DAYS } from '../../infra/constructs/data.ts';
import type { VoiceAgentPlatformApiStack } from '../../infra/stack.ts';
import { FUNCTION_GROUPS } from '../../shared/api/function-groups.ts';
import { API_KEY_HEADER, AUTHORIZER_CACHE_TTL_SECONDS, BINARY_MEDIA_TYPES, GATEWAY_ERRORS } from '../../shared/api/gateway.ts';
import { API_PREFIX, resourcePath } from '../../shared/api/route.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { STATE_MACHINES } from '../../shared/api/state-machines.ts';
import { TABLE_SCHEMA } from '../../shared/repositories/table-schema.ts';
import { EVENT_RULES } from '../../shared/events/event-rules.ts';
import { EVENT_BUS_NAME } from '../../shared/events/names.ts';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

let app: ReturnType<typeof createApp>['app'];
let stack: VoiceAgentPlatformApiStack;
let template: Template;
let resources: Resources;

// Synthesizing bundles every function with esbuild: do it once for the whole file.
beforeAll(() => {
  ({ app, stack } = createApp());
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Resources;
}, 300_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** Function logical id → group name, read back from POWERTOOLS_SERVICE_NAME (`voice-agent-api-<group>`). */
function functionGroups(): Map<string, string> {
  return new Map(
    ofType('AWS::Lambda::Function').map(([id, r]) => [id, String(r.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME).replace(/^voice-agent-api-/, '')]),
  );
}

/** API Gateway resource logical id → full path, rebuilt from PathPart/ParentId. */
function resourcePaths(): Map<string, string> {
  const apiResources = new Map(ofType('AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const { PathPart, ParentId } = apiResources.get(id)!.Properties;
    const parent = ParentId.Ref ? pathOf(ParentId.Ref) : '';
    const path = `${parent}/${PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const id of apiResources.keys()) pathOf(id);
  return paths;
}

interface MethodRow {
  method: string;
  path: string;
  authorization: string;
  group: string | undefined;
}

function methods(): MethodRow[] {
  const paths = resourcePaths();
  const groups = functionGroups();
  return ofType('AWS::ApiGateway::Method').map(([, r]) => {
    const p = r.Properties;
    const uriParts: unknown[] = p.Integration.Uri['Fn::Join'][1];
    const fnId = uriParts.map((part: any) => part?.['Fn::GetAtt']?.[0]).find(Boolean);
    return {
      method: p.HttpMethod,
      path: p.ResourceId.Ref ? paths.get(p.ResourceId.Ref)! : '/',
      authorization: p.AuthorizationType,
      group: groups.get(fnId),
    };
  });
}

describe('VoiceAgentPlatformApi stack', () => {
  it('has one arm64 Node.js 22 function per function group, plus the authorizer', () => {
    const groups = [...functionGroups().values()].sort();
    expect(groups).toEqual([...Object.keys(FUNCTION_GROUPS), 'authorizer'].sort());
    template.allResourcesProperties('AWS::Lambda::Function', { Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    for (const [name, group] of Object.entries(FUNCTION_GROUPS)) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: group.description,
        Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: `voice-agent-api-${name}`, NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
  });

  it('authorizes with a cached REQUEST authorizer on the API-key header', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: `method.request.header.${API_KEY_HEADER}`,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
  });

  it('has exactly one method per route, served by its group, public routes without authorization', () => {
    const rows = methods();
    const routed = rows.filter((m) => m.method !== 'ANY');
    expect(routed.map((m) => `${m.method} ${m.path}`).sort()).toEqual(ROUTES.map((r) => `${r.method} ${resourcePath(r)}`).sort());
    for (const route of ROUTES) {
      const row = routed.find((m) => m.method === route.method && m.path === resourcePath(route))!;
      expect(row.group, `${route.method} ${route.path}`).toBe(route.group);
      expect(row.authorization, `${route.method} ${route.path}`).toBe(route.public ? 'NONE' : 'CUSTOM');
    }
  });

  it('sends wrong methods and unknown paths to the fallback function without authorization', () => {
    const anyMethods = methods().filter((m) => m.method === 'ANY');
    const expected = new Set([...ROUTES.map((r) => resourcePath(r)), `${API_PREFIX}/{proxy+}`, '/{proxy+}']);
    expect(anyMethods.map((m) => m.path).sort()).toEqual([...expected].sort());
    for (const m of anyMethods) expect(m).toMatchObject({ group: 'fallback', authorization: 'NONE' });
  });

  it('configures the REST API: binary types, traced and logged prod stage, JSON gateway responses', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: BINARY_MEDIA_TYPES });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() })]),
    });
    const bodies: [string, { status: number; detail: string }][] = [
      ['UNAUTHORIZED', GATEWAY_ERRORS.unauthorized],
      ['ACCESS_DENIED', GATEWAY_ERRORS.accessDenied],
      ['MISSING_AUTHENTICATION_TOKEN', GATEWAY_ERRORS.notFound],
      ['THROTTLED', GATEWAY_ERRORS.throttled],
    ];
    for (const [type, { status, detail }] of bodies) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(status),
        ResponseTemplates: { 'application/json': JSON.stringify({ detail }) },
      });
    }
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp('^\\{"detail":.+\\}$') },
      });
    }
    template.hasOutput('ApiUrl', { Value: { 'Fn::Join': ['', Match.arrayWith([`/${API_PREFIX.slice(1)}`])] } });
  });

  it('keeps data in a retained, on-demand DynamoDB table with PITR, TTL and the GSIs', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
        KeySchema: [
          { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_SCHEMA.globalSecondaryIndexes.map((gsi) => Match.objectLike({ IndexName: gsi.indexName })),
      }),
    });
  });

  it('stores media in an encrypted, private, SSL-only bucket with access logs and retention', () => {
    template.allResourcesProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: DEFAULT_RETENTION_DAYS, Status: 'Enabled' })]) },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('has the event bus with one rule per EVENT_RULES entry, and one state machine per registry entry', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: EVENT_BUS_NAME });
    template.resourceCountIs('AWS::Events::Rule', EVENT_RULES.length);
    for (const rule of EVENT_RULES) {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: { source: [rule.source], 'detail-type': [rule.detailType] },
      });
    }
    template.resourceCountIs('AWS::StepFunctions::StateMachine', STATE_MACHINES.length);
    for (const spec of STATE_MACHINES) {
      template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineName: Match.stringLikeRegexp(`${spec.name}$`),
        DefinitionSubstitutions: Object.fromEntries(Object.values(spec.tasks).map((g) => [`${g}FunctionArn`, Match.anyValue()])),
        LoggingConfiguration: Match.objectLike({ Level: 'ALL' }),
        TracingConfiguration: { Enabled: true },
      });
    }
  });

  it('runs the media service as an ARM64 Fargate task in a cluster with Container Insights', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: '512',
      Memory: '1024',
      ContainerDefinitions: [Match.objectLike({ PortMappings: [Match.objectLike({ ContainerPort: 8080 })], LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }) })],
    });
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
    template.hasResourceProperties('AWS::EC2::VPC', {});
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::FlowLog', 1);
  });

  it('gives exactly the telephony functions the provider account, the stream secret, KMS and the call rate; the media task the stream secret', () => {
    const telephonyGroups = Object.entries(FUNCTION_GROUPS).flatMap(([name, group]) => ('telephony' in group.access && group.access.telephony ? [name] : []));
    expect(telephonyGroups.sort()).toEqual(['callLifecycle', 'calls', 'numbers', 'telephonyCallbacks']);
    const groups = functionGroups();
    const secretIds = (type: string, description: RegExp) =>
      ofType(type).flatMap(([id, r]) => (description.test(String(r.Properties.Description)) ? [id] : []));
    const [telephonySecret] = secretIds('AWS::SecretsManager::Secret', /telephony provider account/);
    const [streamSecret] = secretIds('AWS::SecretsManager::Secret', /media stream credentials/);
    expect(telephonySecret && streamSecret).toBeTruthy();
    // The telephony secret starts as a placeholder: the first deploy needs nothing filled in by hand.
    expect(JSON.parse(resources[telephonySecret!]!.Properties.SecretString)).toEqual({ provider: 'twilio', account_sid: 'set-me', auth_token: 'set-me' });
    for (const [id, r] of ofType('AWS::Lambda::Function')) {
      const group = groups.get(id);
      const variables = r.Properties.Environment.Variables as Record<string, unknown>;
      const telephony = telephonyGroups.includes(group ?? '');
      for (const name of ['TELEPHONY_ACCOUNT', 'MEDIA_STREAM_SECRET', 'TELEPHONY_CALLS_PER_SECOND']) {
        expect([group, name, name in variables]).toEqual([group, name, telephony]);
      }
      if (telephony) {
        expect(JSON.stringify(variables.TELEPHONY_ACCOUNT)).toContain(telephonySecret);
        expect(JSON.stringify(variables.MEDIA_STREAM_SECRET)).toContain(streamSecret);
        expect(variables.KMS_KEY_ID).toBeDefined();
        expect(variables.TELEPHONY_CALLS_PER_SECOND).toBe('1');
        // Those that give the provider callback or voice URLs know the API's public address.
        expect([group, 'PUBLIC_BASE_URL' in variables]).toEqual([group, group !== 'calls']);
      }
    }
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Secrets: [{ Name: 'MEDIA_STREAM_SECRET', ValueFrom: { Ref: streamSecret } }] })],
    });
  });

  it('passes cdk-nag AwsSolutions with every remaining finding acknowledged', () => {
    // cdk-nag 3 reports through CDK policy validation (which also fails synthesis), not annotations.
    const report = new AwsSolutionsChecks(app).validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });
});
