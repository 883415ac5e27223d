import { CfnParameter, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  Port,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import {
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ListenerCertificate,
  Protocol,
  SslPolicy,
  type ApplicationListener,
} from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct, type Node } from 'constructs';
import {
  ACTIVE_CALLS_METRIC,
  DEFAULT_CALLS_PER_TASK,
  HEALTH_PATH,
  MEASURED_TASK_CAPACITY,
  MEDIA_STREAM_PATH,
} from '../../media/src/deployment.ts';
import { acknowledge, acknowledgeBucketGrant, acknowledgeTableGrant } from '../nag.ts';
import { addTraceCollector, MEDIA_TELEMETRY_ENVIRONMENT } from './media-telemetry.ts';
import { REPO_ROOT } from '../paths.ts';
import type { VoiceProviders } from './voice-providers.ts';

export const MEDIA_PORT = 8080;
/** Fargate's longest stop timeout: SIGKILL follows SIGTERM after this. */
export const STOP_TIMEOUT_SECONDS = 120;
/** A draining task's calls get this long after SIGTERM; the rest of the stop timeout saves them. */
export const DRAIN_SECONDS = 110;
/** An ALB holds a deregistered target's connections at most this long. */
const MAX_DEREGISTRATION_DELAY_SECONDS = 3600;

/** Deployment settings of the media service, from CDK context (see README "Deploying to AWS"). */
export interface MediaSettings {
  /** The media service's host name, e.g. `media.example.com` (a DNS record points it at the load balancer). */
  domainName?: string;
  /** ACM certificate for `domainName`, in the stack's region. */
  certificateArn?: string;
  /** Longest call; a stopping task keeps its calls this long (the load balancer's deregistration delay). */
  maxCallSeconds: number;
  minTasks: number;
  maxTasks: number;
  /** Calls per task that scaling aims at. */
  callsPerTask: number;
  /** The most calls a task takes; a stream beyond is refused cleanly (its run ends `failed`). */
  maxCallsPerTask: number;
  /** The tasks' CPU architecture; the image is built for it (cross-building needs Docker buildx with QEMU). */
  architecture: 'arm64' | 'x86_64';
  /** Dialed calls are made ready while they ring (media/src/call-preparer.ts); off for comparison. */
  earlyConnections: boolean;
}

const ARCHITECTURES = {
  arm64: { cpu: CpuArchitecture.ARM64, image: Platform.LINUX_ARM64 },
  x86_64: { cpu: CpuArchitecture.X86_64, image: Platform.LINUX_AMD64 },
} as const;

function positiveInteger(node: Node, key: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = node.tryGetContext(key) ?? fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`Context ${key} must be an integer from 1 to ${max}, got ${String(raw)}`);
  return value;
}

/** Reads and validates the media context keys; `-c` values arrive as strings, cdk.json values as JSON. */
export function mediaSettingsFromContext(node: Node): MediaSettings {
  const text = (key: string) => {
    const value = node.tryGetContext(key) as unknown;
    return value === undefined || value === '' ? undefined : String(value);
  };
  const settings: MediaSettings = {
    domainName: text('mediaDomainName'),
    certificateArn: text('mediaCertificateArn'),
    maxCallSeconds: positiveInteger(node, 'maxCallSeconds', 3600, MAX_DEREGISTRATION_DELAY_SECONDS),
    minTasks: positiveInteger(node, 'mediaMinTasks', 1),
    maxTasks: positiveInteger(node, 'mediaMaxTasks', 10),
    callsPerTask: positiveInteger(node, 'mediaCallsPerTask', DEFAULT_CALLS_PER_TASK),
    // The measured capacity (or the scaling target, if set above it).
    maxCallsPerTask: positiveInteger(
      node,
      'mediaMaxCallsPerTask',
      Math.max(MEASURED_TASK_CAPACITY.calls, positiveInteger(node, 'mediaCallsPerTask', DEFAULT_CALLS_PER_TASK)),
    ),
    architecture: (text('mediaArchitecture') ?? 'arm64') as MediaSettings['architecture'],
    earlyConnections: (text('mediaEarlyConnections') ?? 'on') !== 'off',
  };
  if (!['on', 'off'].includes(text('mediaEarlyConnections') ?? 'on'))
    throw new Error(`Context mediaEarlyConnections must be on or off, got ${text('mediaEarlyConnections')}`);
  if (!Object.hasOwn(ARCHITECTURES, settings.architecture))
    throw new Error(`Context mediaArchitecture must be arm64 or x86_64, got ${settings.architecture}`);
  if (settings.maxCallsPerTask < settings.callsPerTask)
    throw new Error(
      `Context mediaMaxCallsPerTask (${settings.maxCallsPerTask}) is below mediaCallsPerTask (${settings.callsPerTask})`,
    );
  if (settings.maxTasks < settings.minTasks)
    throw new Error(`Context mediaMaxTasks (${settings.maxTasks}) is below mediaMinTasks (${settings.minTasks})`);
  if (
    settings.certificateArn &&
    !/^arn:aws[\w-]*:acm:[\w-]+:\d{12}:certificate\/[\w-]+$/.test(settings.certificateArn)
  ) {
    throw new Error(`Context mediaCertificateArn is not an ACM certificate ARN: ${settings.certificateArn}`);
  }
  return settings;
}

export interface MediaProps {
  table: ITable;
  bucket: IBucket;
  /** Completed calls are announced here (`call.completed`). */
  eventBus: IEventBus;
  /** Speech and model providers (keys as container secrets; the task refuses to start without them). */
  voiceProviders: VoiceProviders;
  /** Decrypts organizations' own model keys. */
  encryptionKey: IKey;
  /** The load balancer's access logs go here (prefix `media-alb/`). */
  accessLogsBucket: IBucket;
  settings: MediaSettings;
  /** Verifies the per-call stream credentials (read at run time through MEDIA_STREAM_SECRET_ARN). */
  mediaStreamSecret: ISecret;
  /**
   * The platform's telephony account: the task hangs up, through it (or an organization's own
   * account, decrypted with the KMS key), a Telnyx call the agent ended, since closing its media
   * stream leaves a Telnyx call up.
   */
  telephonySecret: ISecret;
  logRetention?: RetentionDays;
}

/**
 * The Fargate media service (live call audio): tasks in private subnets behind an internet-facing
 * Application Load Balancer that terminates TLS for the providers' `wss://` Media Streams.
 */
export class Media extends Construct {
  readonly vpc: Vpc;
  readonly cluster: Cluster;
  readonly taskDefinition: FargateTaskDefinition;
  readonly service: FargateService;
  readonly loadBalancer: ApplicationLoadBalancer;
  readonly listener: ApplicationListener;
  /** `wss://<domain>/media`: where providers stream call audio (MEDIA_STREAM_URL of the functions). */
  readonly streamUrl: string;

  constructor(scope: Construct, id: string, props: MediaProps) {
    super(scope, id);
    const { settings } = props;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const stack = Stack.of(this);
    // Without context the values become parameters of the deployed (top-level) stack: a deploy
    // without them stops at once, naming them, instead of creating a listener with no certificate.
    const root = stack.nestedStackParent ?? stack;
    const domainName =
      settings.domainName ??
      new CfnParameter(root, 'MediaDomainName', {
        type: 'String',
        description: 'Host name of the media service (or context mediaDomainName)',
        minLength: 1,
      }).valueAsString;
    const certificateArn =
      settings.certificateArn ??
      new CfnParameter(root, 'MediaCertificateArn', {
        type: 'String',
        description: 'ACM certificate ARN for the media host name (or context mediaCertificateArn)',
        minLength: 1,
      }).valueAsString;
    this.streamUrl = `wss://${domainName}${MEDIA_STREAM_PATH}`;

    const flowLogs = new LogGroup(this, 'FlowLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      // Tasks reach the speech, model and telephony providers through one NAT gateway; the load
      // balancer and the NAT sit in the public subnets. AWS data services via free gateway endpoints.
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        S3: { service: GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: GatewayVpcEndpointAwsService.DYNAMODB },
      },
      flowLogs: {
        all: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.ALL },
      },
    });

    this.cluster = new Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ContainerInsights.ENABLED });

    this.taskDefinition = new FargateTaskDefinition(this, 'TaskDefinition', {
      // The core the capacity was measured on (MEASURED_TASK_CAPACITY).
      cpu: 1024 * MEASURED_TASK_CAPACITY.vcpu,
      memoryLimitMiB: MEASURED_TASK_CAPACITY.memoryMiB,
      runtimePlatform: {
        cpuArchitecture: ARCHITECTURES[settings.architecture].cpu,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    const containerLogs = new LogGroup(this, 'ContainerLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
    const media = this.taskDefinition.addContainer('media', {
      // Built by `cdk deploy` (needs Docker then) from the repository root, since the service
      // shares shared/ with the Lambdas; the root .dockerignore keeps the context small.
      image: ContainerImage.fromAsset(REPO_ROOT, {
        file: 'media/Dockerfile',
        platform: ARCHITECTURES[settings.architecture].image,
      }),
      portMappings: [{ containerPort: MEDIA_PORT }],
      logging: LogDrivers.awsLogs({ streamPrefix: 'media', logGroup: containerLogs }),
      environment: {
        PORT: String(MEDIA_PORT),
        TABLE_NAME: props.table.tableName,
        BUCKET_NAME: props.bucket.bucketName,
        EVENT_BUS_NAME: props.eventBus.eventBusName,
        POWERTOOLS_SERVICE_NAME: 'media',
        KMS_KEY_ID: props.encryptionKey.keyArn,
        MEDIA_STREAM_SECRET_ARN: props.mediaStreamSecret.secretArn,
        // The keys are read when a call needs them, not injected at task start: a task starts
        // without them (the first deploy), and a key filled or rotated later needs no new task.
        VOICE_PROVIDERS_SECRET_ARN: props.voiceProviders.secret.secretArn,
        TELEPHONY_SECRET_ARN: props.telephonySecret.secretArn,
        ...props.voiceProviders.settings,
        MAX_CALL_SECONDS: String(settings.maxCallSeconds),
        DRAIN_SECONDS: String(DRAIN_SECONDS),
        MEDIA_MAX_CALLS: String(settings.maxCallsPerTask),
        // Each turn's latency: metrics in this namespace, spans to the collector beside it.
        ...MEDIA_TELEMETRY_ENVIRONMENT,
        MEDIA_EARLY_CONNECTIONS: settings.earlyConnections ? 'on' : 'off',
      },
      stopTimeout: Duration.seconds(STOP_TIMEOUT_SECONDS),
      healthCheck: {
        // node:22-slim has no curl; Node's fetch does the probe.
        command: [
          'CMD',
          'node',
          '-e',
          `fetch('http://127.0.0.1:${MEDIA_PORT}${HEALTH_PATH}').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
        ],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        startPeriod: Duration.seconds(10),
      },
    });
    addTraceCollector(this.taskDefinition, media, containerLogs);
    props.table.grantReadWriteData(this.taskDefinition.taskRole);
    props.bucket.grantReadWrite(this.taskDefinition.taskRole);
    props.eventBus.grantPutEventsTo(this.taskDefinition.taskRole);
    props.encryptionKey.grantDecrypt(this.taskDefinition.taskRole);
    // Read by the service itself at run time (cached), so a rotated key reaches running tasks.
    props.mediaStreamSecret.grantRead(this.taskDefinition.taskRole);
    props.voiceProviders.secret.grantRead(this.taskDefinition.taskRole);
    props.telephonySecret.grantRead(this.taskDefinition.taskRole);
    acknowledgeTableGrant(this.taskDefinition.taskRole, props.table);
    acknowledgeBucketGrant(this.taskDefinition.taskRole, props.bucket);

    this.service = new FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      assignPublicIp: false,
      // A deployment starts new tasks before stopping old ones, and rolls back if they never get healthy.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      healthCheckGracePeriod: Duration.seconds(60),
    });
    // A listener or control command for a call reaches any task through the load balancer; the
    // task holding the call takes it from the other tasks (media/src/live-call-server.ts).
    this.service.connections.allowInternally(
      Port.tcp(MEDIA_PORT),
      'Media tasks pass live listeners and control commands to the task holding the call',
    );

    this.loadBalancer = new ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: this.vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      dropInvalidHeaderFields: true,
    });
    if (Token.isUnresolved(stack.region)) {
      // Log delivery is granted to the region's ELB account, unknown to an environment-agnostic synth.
      acknowledge(
        this.loadBalancer,
        "Region unknown at synthesis (no CDK_DEFAULT_REGION / AWS profile): access logs need that region's ELB log-delivery principal; `cdk deploy` always has a region and turns them on.",
        'AwsSolutions-ELB2',
      );
    } else {
      this.loadBalancer.logAccessLogs(props.accessLogsBucket, 'media-alb');
    }
    // An ALB passes WebSocket upgrades through on an HTTPS listener: wss:// ends here, HTTP to the task.
    this.listener = this.loadBalancer.addListener('Https', {
      port: 443,
      protocol: ApplicationProtocol.HTTPS,
      sslPolicy: SslPolicy.RECOMMENDED_TLS,
      certificates: [ListenerCertificate.fromArn(certificateArn)],
      open: true,
    });
    this.listener.addTargets('Tasks', {
      port: MEDIA_PORT,
      protocol: ApplicationProtocol.HTTP,
      targets: [this.service.loadBalancerTarget({ containerName: 'media', containerPort: MEDIA_PORT })],
      healthCheck: {
        path: HEALTH_PATH,
        protocol: Protocol.HTTP,
        healthyHttpCodes: '200',
        interval: Duration.seconds(10),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 2,
      },
      // A stopping task (scale-in, deployment) keeps its open calls this long before ECS sends
      // SIGTERM; the task then drains for DRAIN_SECONDS more. Every call gets its full length.
      deregistrationDelay: Duration.seconds(settings.maxCallSeconds),
    });

    // Scale on calls, not CPU or requests: a call is one long-lived WebSocket (one ALB request
    // however long it lasts), and its cost is the audio pipeline it holds. Each task publishes its
    // open calls; their Average across tasks is calls per task (see ACTIVE_CALLS_METRIC).
    const scaling = this.service.autoScaleTaskCount({ minCapacity: settings.minTasks, maxCapacity: settings.maxTasks });
    scaling.scaleToTrackCustomMetric('ActiveCallsPerTask', {
      metric: new Metric({
        namespace: ACTIVE_CALLS_METRIC.namespace,
        metricName: ACTIVE_CALLS_METRIC.name,
        dimensionsMap: { service: ACTIVE_CALLS_METRIC.serviceName },
        statistic: 'Average',
        period: Duration.minutes(1),
      }),
      targetValue: settings.callsPerTask,
      scaleOutCooldown: Duration.minutes(1),
      // Scale-in is cheap to delay and costly to get wrong: every stopped task drains for up to a call's length.
      scaleInCooldown: Duration.minutes(10),
    });

    acknowledge(
      this.taskDefinition,
      'Environment variables hold resource names, the port, limits and provider settings only; provider keys are container secrets.',
      'AwsSolutions-ECS2',
    );
    acknowledge(
      this.taskDefinition.obtainExecutionRole(),
      'ecr:GetAuthorizationToken (image pull) does not support resource-level permissions.',
      'AwsSolutions-IAM5[Resource::*]',
    );
    acknowledge(
      this.loadBalancer,
      "The telephony providers' media servers connect from the internet (their address ranges change), so 443 is open to all; TLS only, and the tasks accept traffic from the load balancer alone.",
      'AwsSolutions-EC23',
    );
  }
}
