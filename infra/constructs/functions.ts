import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Construct } from 'constructs';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup } from '../../shared/api/function-groups.ts';
import { acknowledge, acknowledgeBucketGrant, acknowledgeTableGrant, wildcardResourceFinding } from '../nag.ts';
import { LAMBDA_HANDLER, lambdaCode } from '../bundling.ts';
import {
  allFunctions,
  CALLER_VOICE_SETTINGS,
  type FunctionName,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  serviceNameOf,
  settingsFor,
} from '../../shared/config/settings.ts';
import { EVENT_RULES } from '../../shared/events/event-rules.ts';
import type { DeadLetters } from './dead-letters.ts';
import type { Secrets } from './secrets.ts';

export { SERVICE_NAME };

/** A state machine the functions may start, known by name before it exists (see workflows.ts). */
export interface StateMachineRef {
  envVar: string;
  arn: string;
  executionArns: string;
}

/** Deployment settings from CDK context (README, Deploying to AWS); empty when not given. */
export interface DeploymentSettings {
  /** WebSocket URL of the media service the provider streams call audio to. */
  mediaStreamUrl: string;
  /** A number the platform account owns: the caller id of agents without an outbound number. */
  defaultCallerId: string;
  /** The platform account's outbound calls per second at the provider (Twilio's default: 1). */
  telephonyCallsPerSecond: number;
  /** Contact the provider writes to about regulatory reviews of numbers. */
  telephonyRegulatoryEmail: string;
  maxCallSeconds: number;
  llmApiUrl: string;
  llmModel: string;
}

/** Settings whose value exists only once other resources do (set with `setDeferred`). */
const DEFERRED_SETTINGS = new Set(['PUBLIC_BASE_URL', 'REST_API_ID', 'API_STAGE_NAME']);

export interface FunctionsProps {
  table: ITable;
  bucket: IBucket;
  eventBus: IEventBus;
  stateMachines: StateMachineRef[];
  secrets: Secrets;
  /** The voice providers' keys (VoiceProviders): the platform model's key is read from it at run time. */
  voiceProvidersSecret: ISecret;
  /** The voice settings (VoiceProviders.settings): a voice test's simulated caller speaks and hears as the media task does. */
  voiceSettings: Record<string, string>;
  settings: DeploymentSettings;
  /** Where failed asynchronous invocations (scheduled and event-driven functions) go after their retries. */
  deadLetters: DeadLetters;
  /** Reserve each group's `reservedConcurrency` (off for accounts whose concurrency quota is still 10). */
  reserveConcurrency?: boolean;
  logRetention?: RetentionDays;
}

/** One NodejsFunction per entry of FUNCTION_GROUPS plus the authorizer, each with only its listed access. */
export class Functions extends Construct {
  readonly authorizer: NodejsFunction;
  private readonly groups = new Map<string, NodejsFunction>();
  private readonly specs = new Map<NodejsFunction, FunctionGroup>();
  private readonly props: FunctionsProps;
  private readonly values: Record<string, string>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    this.props = props;
    this.values = this.settingValues();
    this.authorizer = this.createFunction('authorizer', AUTHORIZER);
    for (const [name, group] of Object.entries(FUNCTION_GROUPS) as [string, FunctionGroup][]) {
      this.groups.set(name, this.createFunction(name, group));
    }
  }

  /** The value of every setting the stack gives (shared/config/settings.ts), except the deferred ones. */
  private settingValues(): Record<string, string> {
    const { table, bucket, eventBus, stateMachines, secrets, settings } = this.props;
    return {
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      EVENT_BUS_NAME: eventBus.eventBusName,
      ...Object.fromEntries(stateMachines.map((sm) => [sm.envVar, sm.arn])),
      DOWNLOAD_LINK_SECRET_ARN: secrets.downloadLinkSecret.secretArn,
      // Empty until configured (context); the code reading them fails naming the setting.
      MEDIA_STREAM_URL: settings.mediaStreamUrl,
      TELEPHONY_CALLS_PER_SECOND: String(settings.telephonyCallsPerSecond),
      TELEPHONY_REGULATORY_EMAIL: settings.telephonyRegulatoryEmail,
      TELEPHONY_SECRET_ARN: secrets.telephonySecret.secretArn,
      MEDIA_STREAM_SECRET_ARN: secrets.mediaStreamSecret.secretArn,
      KMS_KEY_ID: secrets.encryptionKey.keyArn,
      SHEETS_SECRET_ARN: secrets.sheetsSecret.secretArn,
      MAX_CALL_SECONDS: String(settings.maxCallSeconds),
      DEFAULT_CALLER_ID: settings.defaultCallerId,
      LLM_API_URL: settings.llmApiUrl,
      LLM_MODEL: settings.llmModel,
      VOICE_PROVIDERS_SECRET_ARN: this.props.voiceProvidersSecret.secretArn,
      ...Object.fromEntries(CALLER_VOICE_SETTINGS.map((name) => [name, this.props.voiceSettings[name] ?? ''])),
    };
  }

  /** Exactly the settings function `name` reads, each with its value. */
  private environmentOf(name: string, group: FunctionGroup): Record<string, string> {
    const environment: Record<string, string> = {
      // Read by Node itself, not by the function: a runtime option rather than a setting.
      NODE_OPTIONS: '--enable-source-maps',
    };
    for (const setting of settingsFor(name as FunctionName, group, { local: false })) {
      if (DEFERRED_SETTINGS.has(setting)) continue;
      if (setting === 'POWERTOOLS_SERVICE_NAME') environment[setting] = serviceNameOf(name as FunctionName);
      else if (Object.hasOwn(this.values, setting)) environment[setting] = this.values[setting]!;
      else
        throw new Error(
          `The stack gives no value for ${setting}, which function ${name} reads (shared/config/settings.ts)`,
        );
    }
    return environment;
  }

  /** Sets a deferred setting (e.g. PUBLIC_BASE_URL, once the API exists) on every function that reads it. */
  setDeferred(setting: string, value: string): void {
    for (const [name, group] of allFunctions(AUTHORIZER)) {
      if (!settingsFor(name, group, { local: false }).includes(setting)) continue;
      (name === 'authorizer' ? this.authorizer : this.get(name)).addEnvironment(setting, value);
    }
  }

  /**
   * The API exists: the functions that flush its authorizer cache (a revoked key refused at once)
   * get its id and stage, and the right to flush that stage's cache only.
   */
  allowAuthorizerCacheFlush(restApiId: string, stageName: string): void {
    this.setDeferred('REST_API_ID', restApiId);
    this.setDeferred('API_STAGE_NAME', stageName);
    for (const [name, group] of Object.entries(FUNCTION_GROUPS) as [string, FunctionGroup][]) {
      if (!group.access.authorizerCache) continue;
      this.get(name).addToRolePolicy(
        new PolicyStatement({
          actions: ['apigateway:DELETE'],
          resources: [
            `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/restapis/${restApiId}/stages/${stageName}/cache/authorizers`,
          ],
        }),
      );
    }
  }

  /** The function serving an endpoint group; unknown groups fail synthesis with a clear message. */
  get(group: string): NodejsFunction {
    const fn = this.groups.get(group);
    if (!fn) throw new Error(`Unknown function group '${group}' (not in FUNCTION_GROUPS)`);
    return fn;
  }

  /** Every function, authorizer included. */
  get all(): NodejsFunction[] {
    return [this.authorizer, ...this.groups.values()];
  }

  private createFunction(name: string, group: FunctionGroup): NodejsFunction {
    const { table, bucket, eventBus, stateMachines, secrets, logRetention = RetentionDays.ONE_MONTH } = this.props;
    const id = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    // Own role instead of AWSLambdaBasicExecutionRole: it may write to its log group only.
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Lambda ${name}: ${group.description}`.slice(0, 1000),
    });
    logGroup.grantWrite(role);

    const environment = this.environmentOf(name, group);

    const invokedAsynchronously = Boolean(group.schedule) || EVENT_RULES.some((rule) => rule.target === name);
    const fn = new NodejsFunction(this, id, {
      code: lambdaCode(group),
      handler: LAMBDA_HANDLER,
      description: group.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: group.memorySize ?? 512,
      reservedConcurrentExecutions: this.props.reserveConcurrency === false ? undefined : group.reservedConcurrency,
      // Asynchronous invocations: two retries, then the failure record (event and error) to a queue.
      ...(invokedAsynchronously
        ? {
            retryAttempts: 2,
            maxEventAge: Duration.hours(6),
            onFailure: new SqsDestination(this.props.deadLetters.asyncInvocations),
          }
        : {}),
      // API Gateway gives up on an integration after 29 s.
      timeout: Duration.seconds(group.timeoutSeconds ?? 29),
      tracing: Tracing.ACTIVE,
      role,
      logGroup,
      environment,
    });

    if (group.access.table === 'read') table.grantReadData(fn);
    if (group.access.table === 'readWrite') table.grantReadWriteData(fn);
    if (group.access.table) acknowledgeTableGrant(role, table);
    if (group.access.bucket === 'read') bucket.grantRead(fn);
    if (group.access.bucket === 'readWrite') bucket.grantReadWrite(fn);
    if (group.access.bucket) acknowledgeBucketGrant(role, bucket);
    if (group.access.eventBus) eventBus.grantPutEventsTo(fn);
    // Each secret is readable by exactly the functions given its ARN (shared/config/settings.ts).
    const secretsByArnSetting: Record<string, ISecret> = {
      DOWNLOAD_LINK_SECRET_ARN: secrets.downloadLinkSecret,
      SHEETS_SECRET_ARN: secrets.sheetsSecret,
      VOICE_PROVIDERS_SECRET_ARN: this.props.voiceProvidersSecret,
      TELEPHONY_SECRET_ARN: secrets.telephonySecret,
      MEDIA_STREAM_SECRET_ARN: secrets.mediaStreamSecret,
    };
    for (const [setting, secret] of Object.entries(secretsByArnSetting))
      if (Object.hasOwn(environment, setting)) secret.grantRead(fn);
    // Exactly the two operations the secret box uses (grantEncryptDecrypt adds data-key wildcards).
    if (group.access.encryption || group.access.telephony)
      secrets.encryptionKey.grant(fn, 'kms:Encrypt', 'kms:Decrypt');
    if (group.schedule) {
      const scheduleRole = new Role(this, `${id}ScheduleRole`, {
        assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      });
      acknowledge(
        scheduleRole,
        "The scheduler target's invoke grant covers this one function and its versions/aliases (<function>:*).",
        wildcardResourceFinding(scheduleRole, `${fn.functionArn}:*`),
      );
      new Schedule(this, `${id}Schedule`, {
        description: `Runs ${name} every ${group.schedule.everyMinutes} minute(s)`,
        schedule: ScheduleExpression.rate(Duration.minutes(group.schedule.everyMinutes)),
        target: new LambdaInvoke(fn, {
          role: scheduleRole,
          deadLetterQueue: this.props.deadLetters.eventDelivery,
          retryAttempts: 3,
        }),
      });
    }
    if (group.access.stateMachines && stateMachines.length > 0) {
      // Formatted ARNs, not grantStartExecution: the state machines reference these functions.
      fn.addToRolePolicy(
        new PolicyStatement({ actions: ['states:StartExecution'], resources: stateMachines.map((sm) => sm.arn) }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['states:DescribeExecution', 'states:StopExecution'],
          resources: stateMachines.map((sm) => sm.executionArns),
        }),
      );
      acknowledge(
        role,
        'Executions are named per run at StartExecution time, so Describe/StopExecution can only be scoped to <state machine>:*.',
        ...stateMachines.map((sm) => wildcardResourceFinding(role, sm.executionArns)),
      );
    }
    this.specs.set(fn, group);
    acknowledge(
      role,
      'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.',
      'AwsSolutions-IAM5[Resource::*]',
    );
    acknowledge(
      fn,
      'Node.js 22 on purpose: the project (engines, local stack, esbuild target) is pinned to Node 22 LTS.',
      'AwsSolutions-L1',
      'Serverless-LambdaLatestVersion',
    );
    acknowledge(
      fn,
      invokedAsynchronously
        ? 'Failed asynchronous invocations go to an on-failure destination (the AsyncInvocationFailures queue), which keeps the error with the event; a DLQ would duplicate it.'
        : 'Invoked synchronously only (API Gateway, the authorizer, Step Functions Tasks): a failure returns to the caller, which answers, retries or catches it.',
      'Serverless-LambdaDLQ',
    );
    return fn;
  }
}
