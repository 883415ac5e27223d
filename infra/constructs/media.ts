import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { FlowLogDestination, FlowLogTrafficType, GatewayVpcEndpointAwsService, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
  Secret as EcsSecret,
} from 'aws-cdk-lib/aws-ecs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge, acknowledgeBucketGrant, acknowledgeTableGrant } from '../nag.ts';
import { REPO_ROOT } from '../paths.ts';

export const MEDIA_PORT = 8080;

export interface MediaProps {
  table: ITable;
  bucket: IBucket;
  /** Completed calls are announced here (`call.completed`). */
  eventBus: IEventBus;
  /** Verifies the per-call stream credentials (MEDIA_STREAM_SECRET). */
  mediaStreamSecret: ISecret;
  logRetention?: RetentionDays;
}

/** Network, cluster and task definition of the Fargate media service (live call audio). */
export class Media extends Construct {
  readonly vpc: Vpc;
  readonly cluster: Cluster;
  readonly taskDefinition: FargateTaskDefinition;

  constructor(scope: Construct, id: string, props: MediaProps) {
    super(scope, id);
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;

    const flowLogs = new LogGroup(this, 'FlowLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      // No NAT cost: tasks run in public subnets, AWS data services via free gateway endpoints.
      natGateways: 0,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'isolated', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
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
      cpu: 512,
      memoryLimitMiB: 1024,
      runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    const containerLogs = new LogGroup(this, 'ContainerLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
    this.taskDefinition.addContainer('media', {
      // Built by `cdk deploy` (needs Docker then) from the repository root, since the service
      // shares shared/ with the Lambdas; the root .dockerignore keeps the context small.
      image: ContainerImage.fromAsset(REPO_ROOT, { file: 'media/Dockerfile', platform: Platform.LINUX_ARM64 }),
      portMappings: [{ containerPort: MEDIA_PORT }],
      logging: LogDrivers.awsLogs({ streamPrefix: 'media', logGroup: containerLogs }),
      environment: {
        PORT: String(MEDIA_PORT),
        TABLE_NAME: props.table.tableName,
        BUCKET_NAME: props.bucket.bucketName,
        EVENT_BUS_NAME: props.eventBus.eventBusName,
        MEDIA_PROVIDERS: 'scripted',
        POWERTOOLS_SERVICE_NAME: 'media',
      },
      // Injected by ECS from Secrets Manager at task start, never in the task definition.
      secrets: { MEDIA_STREAM_SECRET: EcsSecret.fromSecretsManager(props.mediaStreamSecret) },
      healthCheck: {
        // node:22-slim has no curl; Node's fetch does the probe.
        command: ['CMD', 'node', '-e', `fetch('http://127.0.0.1:${MEDIA_PORT}/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        startPeriod: Duration.seconds(10),
      },
    });
    props.table.grantReadWriteData(this.taskDefinition.taskRole);
    props.bucket.grantReadWrite(this.taskDefinition.taskRole);
    props.eventBus.grantPutEventsTo(this.taskDefinition.taskRole);
    acknowledgeTableGrant(this.taskDefinition.taskRole, props.table);
    acknowledgeBucketGrant(this.taskDefinition.taskRole, props.bucket);

    acknowledge(this.taskDefinition, 'Environment variables hold resource names and the port only; no secrets.', 'AwsSolutions-ECS2');
    acknowledge(
      this.taskDefinition.obtainExecutionRole(),
      'ecr:GetAuthorizationToken (image pull) does not support resource-level permissions.',
      'AwsSolutions-IAM5[Resource::*]',
    );
  }
}
