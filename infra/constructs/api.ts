import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AwsIntegration,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type IResource,
  type Method,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  API_KEY_HEADER,
  AUTHORIZER_CACHE_TTL_SECONDS,
  BINARY_MEDIA_TYPES,
  CORS_HEADERS,
  GATEWAY_ERRORS,
  ORGANIZATION_RATE_LIMIT,
  STAGE_RATE_LIMIT,
} from '../../shared/api/gateway.ts';
import { RATE_LIMIT_POLICY, THROTTLED_HEADERS } from '../../shared/http/rate-limit.ts';
import { API_PREFIX, resourcePath } from '../../shared/api/route.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { acknowledge, managedPolicyFinding } from '../nag.ts';
import { ApiFirewall } from './api-firewall.ts';
import type { Functions } from './functions.ts';

export interface ApiProps {
  functions: Functions;
  stageName?: string;
  logRetention?: RetentionDays;
}

/** Group whose function answers unknown paths (404) and wrong methods (405). */
const FALLBACK_GROUP = 'fallback';

/**
 * Gateway responses mirror the local gateway's answers (GATEWAY_ERRORS). Without `status`, API
 * Gateway keeps its own code (e.g. 502 for a failed Lambda, 504 for a timeout).
 */
const GATEWAY_RESPONSES: { type: ResponseType; status?: number; detail?: string; headers?: Record<string, string> }[] =
  [
    { type: ResponseType.UNAUTHORIZED, ...GATEWAY_ERRORS.unauthorized },
    { type: ResponseType.ACCESS_DENIED, ...GATEWAY_ERRORS.accessDenied },
    // A path with no resource: API Gateway's "Missing Authentication Token" 403 is really a 404.
    { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, ...GATEWAY_ERRORS.notFound },
    {
      type: ResponseType.THROTTLED,
      ...GATEWAY_ERRORS.throttled,
      headers: THROTTLED_HEADERS,
    },
    { type: ResponseType.INVALID_API_KEY, ...GATEWAY_ERRORS.invalidApiKey },
    { type: ResponseType.REQUEST_TOO_LARGE, ...GATEWAY_ERRORS.requestTooLarge },
    // Other 4xx (rare: no API Gateway validators) keep API Gateway's own message.
    { type: ResponseType.DEFAULT_4XX },
    { type: ResponseType.DEFAULT_5XX, detail: GATEWAY_ERRORS.internal.detail },
  ];

/**
 * The REST API, built from the route table: one method per route under /api/v1, an API-key
 * request authorizer on every non-public route, and the fallback function behind everything else.
 */
export class Api extends Construct {
  readonly api: RestApi;
  readonly stageName: string;
  /** Base URL of the API, ending in /api/v1 (the stage URL plus the prefix). */
  readonly baseUrl: string;
  /** The same URL built without referencing the stage, so functions can receive it without a cycle. */
  readonly baseUrlForFunctions: string;
  /** JSON access logs (with the gateway's responseType, so throttled requests can be counted). */
  readonly accessLogs: LogGroup;
  /** Every organization's API Gateway key is in this plan: the per-organization rate limit. */
  readonly usagePlan: UsagePlan;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { functions } = props;
    this.stageName = props.stageName ?? 'prod';

    const accessLogs = (this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    }));
    this.api = new RestApi(this, 'RestApi', {
      restApiName: 'voice-agent-platform-api',
      description: 'Voice agent platform public REST API',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // Stage logging needs the account-level CloudWatch role; create it rather than assume it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: this.stageName,
        tracingEnabled: true,
        metricsEnabled: true,
        // Errors only, and no request/response bodies: they carry API keys and customer data.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            ip: AccessLogField.contextIdentitySourceIp(),
            requestTime: AccessLogField.contextRequestTime(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            protocol: AccessLogField.contextProtocol(),
            responseLength: AccessLogField.contextResponseLength(),
            // Which gateway answer it was (THROTTLED, UNAUTHORIZED, ...): the throttling metric counts THROTTLED.
            responseType: AccessLogField.contextErrorResponseType(),
            organizationId: AccessLogField.contextAuthorizer('organizationId'),
          }),
        ),
        throttlingRateLimit: STAGE_RATE_LIMIT.rateLimit,
        throttlingBurstLimit: STAGE_RATE_LIMIT.burstLimit,
      },
      // The authorizer names the organization's usage-plan key (usageIdentifierKey): clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    });
    new ApiFirewall(this, 'Firewall', { api: this.api });
    this.usagePlan = this.api.addUsagePlan('OrganizationUsagePlan', {
      name: 'organizations',
      description:
        'Per-organization rate limit: each organization has its own API key in this plan (operator CLI, org create)',
      throttle: ORGANIZATION_RATE_LIMIT,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });

    const authorizer = new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      // The function lives in the functions' nested stack. Handed over by ARN, its invoke
      // permission (which names this authorizer) is created here: created beside the function it
      // would reference the authorizer, which references the function, a cycle between the stacks.
      handler: LambdaFunction.fromFunctionAttributes(this, 'AuthorizerFunction', {
        functionArn: functions.authorizer.functionArn,
        sameEnvironment: true,
      }),
      identitySources: [IdentitySource.header(API_KEY_HEADER)],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });

    // One integration per function with one API-scoped permission each, instead of two per method.
    // The Lambda proxy integration LambdaIntegration builds, but with the permission created beside
    // the function (its nested stack) rather than beside the API: the root stack keeps the room.
    const integrations = new Map<string, AwsIntegration>();
    const integration = (group: string) => {
      let found = integrations.get(group);
      if (!found) {
        const handler = functions.get(group);
        found = new AwsIntegration({
          proxy: true,
          service: 'lambda',
          path: `2015-03-31/functions/${handler.functionArn}/invocations`,
        });
        handler.addPermission('ApiInvoke', {
          principal: new ServicePrincipal('apigateway.amazonaws.com'),
          sourceArn: this.api.arnForExecuteApi(),
        });
        integrations.set(group, found);
      }
      return found;
    };

    const unauthenticated: Method[] = [];
    const routed = new Set<IResource>();
    for (const route of ROUTES) {
      const resource = this.api.root.resourceForPath(resourcePath(route));
      const method = route.public
        ? resource.addMethod(route.method, integration(route.group), { authorizationType: AuthorizationType.NONE })
        : resource.addMethod(route.method, integration(route.group), {
            authorizer,
            authorizationType: AuthorizationType.CUSTOM,
            apiKeyRequired: true,
          });
      if (route.public) unauthenticated.push(method);
      routed.add(resource);
    }

    // Wrong method on a known path (405), unknown path (404): answered by the fallback function.
    const fallback = integration(FALLBACK_GROUP);
    const fallbackResources = [
      ...routed,
      this.api.root.resourceForPath(`${API_PREFIX}/{proxy+}`),
      this.api.root.resourceForPath('/{proxy+}'),
    ];
    for (const resource of fallbackResources) {
      unauthenticated.push(resource.addMethod('ANY', fallback, { authorizationType: AuthorizationType.NONE }));
    }

    for (const { type, status, detail, headers } of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Gateway${type.responseType}`, {
        type,
        statusCode: status === undefined ? undefined : String(status),
        // Gateway response header values are literals in single quotes; a page on another origin reads these too.
        responseHeaders: Object.fromEntries(
          Object.entries({ ...CORS_HEADERS, 'RateLimit-Policy': RATE_LIMIT_POLICY, ...headers }).map(
            ([name, value]) => [name, `'${value}'`],
          ),
        ),
        templates: {
          'application/json': `{"detail":${detail === undefined ? '$context.error.messageString' : JSON.stringify(detail)}}`,
        },
      });
    }

    this.baseUrl = `${this.api.url}${API_PREFIX.slice(1)}`;
    this.baseUrlForFunctions = `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${this.stageName}${API_PREFIX}`;

    acknowledge(
      unauthenticated,
      'Public by design: routes marked public (docs, signed downloads, signed provider callbacks) and the fallback, which only answers 404/405.',
      'AwsSolutions-APIG4',
    );
    acknowledge(
      this.api,
      'Requests are validated in the Lambdas against the route table (zod), giving FastAPI-compatible 422 bodies.',
      'AwsSolutions-APIG2',
    );
    acknowledge(
      this.api,
      'The account-level API Gateway CloudWatch role uses the AWS-managed AmazonAPIGatewayPushToCloudWatchLogs policy, made for exactly this.',
      managedPolicyFinding(this, 'service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
    );
    acknowledge(
      this.api,
      'Clients authenticate with organization API keys (X-API-Key) checked by a Lambda request authorizer, not Cognito.',
      'AwsSolutions-COG4',
    );
  }
}
