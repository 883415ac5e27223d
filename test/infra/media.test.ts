import { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { DRAIN_SECONDS, STOP_TIMEOUT_SECONDS } from '../../infra/constructs/media.ts';
import { createApp } from '../../infra/create-app.ts';
import { ACTIVE_CALLS_METRIC, HEALTH_PATH, MEASURED_TASK_CAPACITY } from '../../media/src/deployment.ts';
import { VOICE_SETTINGS } from '../../shared/config/voice-settings.ts';
import { MEDIA_TELEMETRY_SETTINGS, mediaTelemetrySettings } from '../../shared/config/media-telemetry.ts';
import { COLLECTOR_CONTAINER, COLLECTOR_IMAGE } from '../../infra/constructs/media-telemetry.ts';

const CERTIFICATE_ARN = 'arn:aws:acm:eu-central-1:123456789012:certificate/0f3c2a4e-1111-2222-3333-444455556666';
const CONTEXT = {
  mediaDomainName: 'media.example.com',
  mediaCertificateArn: CERTIFICATE_ARN,
  maxCallSeconds: '1800',
  mediaMinTasks: '2',
  mediaMaxTasks: '8',
  mediaCallsPerTask: '25',
};

/**
 * Template only: the Lambda bundles are not built (test/infra/bundling.test.ts builds them). With
 * an account and region, as `cdk deploy` always has (from the AWS profile): access logging needs the region.
 */
function synth(context: Record<string, unknown> = CONTEXT) {
  const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  process.env.CDK_DEFAULT_ACCOUNT = '123456789012';
  process.env.CDK_DEFAULT_REGION = 'eu-central-1';
  try {
    const { app, stack } = createApp({
      context: { 'aws:cdk:bundling-stacks': [], ...context },
      // Templates read, no output changed: stack.test.ts runs aws-cdk-lib's own validation.
      cloudFormationValidation: false,
    });
    // The media service and the functions are nested stacks; the outputs are in the root stack.
    return { app, stack, root: Template.fromStack(stack), template: Template.fromStack(Stack.of(stack.media)) };
  } finally {
    for (const [key, value] of [
      ['CDK_DEFAULT_ACCOUNT', saved.account],
      ['CDK_DEFAULT_REGION', saved.region],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** A scaling target above the measured capacity (the custom context's): the cap rises with it. */
const RAISED_CALLS_PER_TASK = String(MEASURED_TASK_CAPACITY.calls + 50);

describe('media service on AWS', () => {
  const { app, stack, root, template } = synth();
  // Every context key set otherwise: one synthesis for the voice settings, the architecture and the raised cap.
  const custom = synth({
    ...CONTEXT,
    mediaCallsPerTask: RAISED_CALLS_PER_TASK,
    deepgramModel: 'nova-2-phonecall',
    deepgramFluxModel: 'flux-general-multi',
    ttsProvider: 'openai',
    ttsVoice: 'verse',
    elevenLabsModel: 'eleven_turbo_v2_5',
    openAiTtsModel: 'tts-1',
    llmModel: 'gpt-4.1-mini',
    mediaArchitecture: 'x86_64',
  });
  const resources = template.toJSON().Resources as Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  it('runs Fargate tasks in private subnets only, rolled out before old ones stop, with rollback', () => {
    template.resourceCountIs('AWS::ECS::Service', 1);
    const [, service] = ofType('AWS::ECS::Service')[0]!;
    expect(service.Properties.LaunchType).toBe('FARGATE');
    const network = service.Properties.NetworkConfiguration.AwsvpcConfiguration;
    expect(network.AssignPublicIp).toBe('DISABLED');
    for (const subnet of network.Subnets as { Ref: string }[]) {
      const tags = resources[subnet.Ref]!.Properties.Tags as { Key: string; Value: string }[];
      expect(tags).toContainEqual({ Key: 'aws-cdk:subnet-type', Value: 'Private' });
    }
    expect(service.Properties.DeploymentConfiguration).toMatchObject({
      MinimumHealthyPercent: 100,
      DeploymentCircuitBreaker: { Enable: true, Rollback: true },
    });
    expect(service.Properties.LoadBalancers).toEqual([
      expect.objectContaining({ ContainerName: 'media', ContainerPort: 8080 }),
    ]);
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
  });

  it('terminates TLS for wss:// on an internet-facing load balancer with the certificate from context', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Scheme: 'internet-facing',
      Type: 'application',
      LoadBalancerAttributes: Match.arrayWith([
        { Key: 'routing.http.drop_invalid_header_fields.enabled', Value: 'true' },
        { Key: 'access_logs.s3.enabled', Value: 'true' },
      ]),
    });
    template.resourceCountIs('AWS::ElasticLoadBalancingV2::Listener', 1);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [{ CertificateArn: CERTIFICATE_ARN }],
      SslPolicy: Match.stringLikeRegexp('^ELBSecurityPolicy-TLS13'),
    });
    expect(template.findParameters('*')).not.toHaveProperty('MediaCertificateArn');
  });

  it('health-checks the tasks and lets a stopping task finish its calls (deregistration delay = maxCallSeconds)', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 8080,
      Protocol: 'HTTP',
      TargetType: 'ip',
      HealthCheckPath: HEALTH_PATH,
      Matcher: { HttpCode: '200' },
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '1800' }]),
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({
          StopTimeout: STOP_TIMEOUT_SECONDS,
          Environment: Match.arrayWith([
            { Name: 'MAX_CALL_SECONDS', Value: '1800' },
            { Name: 'DRAIN_SECONDS', Value: String(DRAIN_SECONDS) },
          ]),
        }),
      ]),
    });
    expect(DRAIN_SECONDS).toBeLessThan(STOP_TIMEOUT_SECONDS);
    // A transfer's callbacks go to the API (the task asks the provider to call it back there).
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!;
    const names = task.Properties.ContainerDefinitions[0].Environment.map((v: { Name: string }) => v.Name);
    expect(names).toContain('PUBLIC_BASE_URL');
  });

  it('lets only the load balancer and the other tasks (live listen and control) reach the tasks, on the container port', () => {
    const ingress = ofType('AWS::EC2::SecurityGroupIngress').map(([, r]) => r.Properties);
    const serviceGroups = (
      ofType('AWS::ECS::Service')[0]![1].Properties.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups as {
        'Fn::GetAtt': string[];
      }[]
    ).map((group) => group['Fn::GetAtt'][0]);
    const toTasks = ingress.filter((rule) => serviceGroups.includes(rule.GroupId['Fn::GetAtt'][0]));
    expect(toTasks).toHaveLength(2);
    for (const rule of toTasks)
      expect(rule).toEqual(
        expect.objectContaining({ FromPort: 8080, ToPort: 8080, SourceSecurityGroupId: expect.anything() }),
      );
    // One from the load balancer's group, one from the tasks' own (a task passes a listener on).
    const sources = toTasks.map((rule) => rule.SourceSecurityGroupId['Fn::GetAtt'][0]);
    expect(sources.filter((source) => serviceGroups.includes(source))).toHaveLength(1);
    const balancerGroups = (
      ofType('AWS::ElasticLoadBalancingV2::LoadBalancer')[0]![1].Properties.SecurityGroups as {
        'Fn::GetAtt': string[];
      }[]
    ).map((group) => group['Fn::GetAtt'][0]);
    expect(sources.filter((source) => balancerGroups.includes(source))).toHaveLength(1);
  });

  it('scales on active calls per task, published by the tasks, within the context bounds', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 2,
      MaxCapacity: 8,
      ScalableDimension: 'ecs:service:DesiredCount',
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        TargetValue: 25,
        CustomizedMetricSpecification: {
          Namespace: ACTIVE_CALLS_METRIC.namespace,
          MetricName: ACTIVE_CALLS_METRIC.name,
          Dimensions: [{ Name: 'service', Value: ACTIVE_CALLS_METRIC.serviceName }],
          Statistic: 'Average',
        },
      }),
    });
  });

  it('gives the telephony functions the wss:// stream URL of the media domain, and outputs it', () => {
    // The functions are a nested stack of their own; a literal URL reaches it as it is.
    const functionResources = Template.fromStack(Stack.of(stack.functions)).toJSON().Resources as Resources;
    const telephonyFunctions = Object.entries(functionResources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.MEDIA_STREAM_URL,
    );
    expect(telephonyFunctions.length).toBeGreaterThan(0);
    for (const [, fn] of telephonyFunctions)
      expect(fn.Properties.Environment.Variables.MEDIA_STREAM_URL).toBe('wss://media.example.com/media');
    root.hasOutput('MediaStreamUrl', { Value: 'wss://media.example.com/media' });
    root.hasOutput('MediaLoadBalancerDnsName', {});
  });

  it("runs the AWS Distro for OpenTelemetry collector beside the media container: each turn's spans to X-Ray", () => {
    const [, task] = ofType('AWS::ECS::TaskDefinition')[0]!;
    const [media, collector] = task.Properties.ContainerDefinitions;
    expect(media.Name).toBe('media');
    expect(collector).toMatchObject({ Name: COLLECTOR_CONTAINER, Image: COLLECTOR_IMAGE, Essential: false });
    expect(collector.Memory).toBeLessThanOrEqual(256);
    expect(collector.LogConfiguration.Options['awslogs-group']).toEqual(
      media.LogConfiguration.Options['awslogs-group'],
    );
    // Started first, so the first call's spans find it.
    expect(media.DependsOn).toEqual([{ ContainerName: COLLECTOR_CONTAINER, Condition: 'START' }]);

    // Every telemetry setting the task reads is set, and the task reads them as valid (otlp to the sidecar).
    const variables = Object.fromEntries(
      media.Environment.map((v: { Name: string; Value: string }) => [v.Name, v.Value]),
    ) as Record<string, string>;
    for (const name of Object.keys(MEDIA_TELEMETRY_SETTINGS)) expect(variables).toHaveProperty(name);
    const settings = mediaTelemetrySettings(variables);
    expect(settings).toEqual({
      metricsNamespace: ACTIVE_CALLS_METRIC.namespace,
      traces: { exporter: 'otlp', endpoint: 'http://127.0.0.1:4318/v1/traces' },
    });

    // The collector's configuration: OTLP/HTTP in where the task sends, X-Ray out in the stack's region.
    const config = JSON.parse(
      collector.Environment.find((v: { Name: string }) => v.Name === 'AOT_CONFIG_CONTENT').Value as string,
    );
    expect(`http://${config.receivers.otlp.protocols.http.endpoint}/v1/traces`).toBe(
      settings.traces.exporter === 'otlp' ? settings.traces.endpoint : '',
    );
    expect(config.exporters.awsxray).toEqual({ region: 'eu-central-1', indexed_attributes: ['agent_id', 'run_id'] });
    expect(config.service.pipelines.traces).toEqual({
      receivers: ['otlp'],
      processors: ['batch'],
      exporters: ['awsxray'],
    });

    // The task role may write to X-Ray (the collector signs with it).
    const taskRole = task.Properties.TaskRoleArn['Fn::GetAtt'][0];
    const statements = Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: { Ref: string }) => role.Ref === taskRole),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
        Effect: 'Allow',
        Resource: '*',
      }),
    );
  });

  it('passes cdk-nag AwsSolutions with every remaining finding acknowledged', () => {
    const report = new AwsSolutionsChecks(app).validateScope(app);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });

  it('refuses invalid media context with a message naming the key', () => {
    expect(() => synth({ ...CONTEXT, maxCallSeconds: '5000' })).toThrow(/maxCallSeconds/);
    expect(() => synth({ ...CONTEXT, mediaCertificateArn: 'not-an-arn' })).toThrow(/mediaCertificateArn/);
    expect(() => synth({ ...CONTEXT, mediaMinTasks: '9' })).toThrow(/mediaMaxTasks/);
    expect(() => synth({ ...CONTEXT, mediaArchitecture: 'mips' })).toThrow(/mediaArchitecture/);
    expect(() => synth({ ...CONTEXT, mediaMaxCallsPerTask: '10' })).toThrow(/mediaMaxCallsPerTask/);
  });

  it('caps the calls a task takes (MEDIA_MAX_CALLS) at the measured capacity unless set', () => {
    const environment = (template: Template) => {
      const [, task] = Object.entries(template.toJSON().Resources as Resources).find(
        ([, r]) => r.Type === 'AWS::ECS::TaskDefinition',
      )!;
      return Object.fromEntries(
        task.Properties.ContainerDefinitions[0].Environment.map((v: { Name: string; Value: unknown }) => [
          v.Name,
          v.Value,
        ]),
      );
    };
    expect(environment(template).MEDIA_MAX_CALLS).toBe(String(MEASURED_TASK_CAPACITY.calls));
    // A scaling target set above the measured figure raises the cap with it (the custom context's).
    expect(environment(custom.template).MEDIA_MAX_CALLS).toBe(RAISED_CALLS_PER_TASK);
    // Dialed calls are made ready while they ring, unless turned off (to compare); one synthesis
    // for a cap set in context and early connections off.
    expect(environment(template).MEDIA_EARLY_CONNECTIONS).toBe('on');
    expect(
      environment(synth({ ...CONTEXT, mediaMaxCallsPerTask: '30', mediaEarlyConnections: 'off' }).template),
    ).toMatchObject({ MEDIA_MAX_CALLS: '30', MEDIA_EARLY_CONNECTIONS: 'off' });
    expect(() => synth({ ...CONTEXT, ttsProvider: 'scripted' })).toThrow(/ttsProvider/);
    expect(() => synth({ ...CONTEXT, mediaEarlyConnections: 'yes' })).toThrow(/mediaEarlyConnections/);
  });

  it('sets every voice setting from context, and builds the image for the architecture the tasks run on', () => {
    const [, task] = Object.entries(custom.template.toJSON().Resources as Resources).find(
      ([, r]) => r.Type === 'AWS::ECS::TaskDefinition',
    )!;
    const environment = Object.fromEntries(
      task.Properties.ContainerDefinitions[0].Environment.map((v: { Name: string; Value: unknown }) => [
        v.Name,
        v.Value,
      ]),
    );
    expect(environment).toMatchObject({
      DEEPGRAM_MODEL: 'nova-2-phonecall',
      DEEPGRAM_FLUX_MODEL: 'flux-general-multi',
      TTS_PROVIDER: 'openai',
      TTS_VOICE: 'verse',
      ELEVENLABS_MODEL: 'eleven_turbo_v2_5',
      OPENAI_TTS_MODEL: 'tts-1',
      LLM_MODEL: 'gpt-4.1-mini',
    });
    for (const name of Object.keys(VOICE_SETTINGS)) expect(environment).toHaveProperty(name);
    expect(task.Properties.RuntimePlatform).toEqual({ CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' });
    expect(imagePlatforms(custom.app)).toEqual(['linux/amd64']);
    expect(imagePlatforms(app)).toEqual(['linux/arm64']);
  });
});

/** The platforms the stack's container images are built for (the asset manifest `cdk deploy` builds from). */
function imagePlatforms(app: ReturnType<typeof synth>['app']): string[] {
  return app
    .synth()
    .artifacts.flatMap((artifact) =>
      Object.values(
        (artifact as unknown as { contents?: { dockerImages?: Record<string, { source: { platform?: string } }> } })
          .contents?.dockerImages ?? {},
      ).map((image) => image.source.platform ?? 'unset'),
    );
}

describe('the first deploy into a fresh account (default context, no provider key anywhere)', () => {
  const { root, template } = synth({});
  const resources = template.toJSON().Resources as Resources;
  const rootResources = root.toJSON().Resources as Resources;
  const [, service] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ECS::Service')!;
  const [, task] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ECS::TaskDefinition')!;
  const container = task.Properties.ContainerDefinitions[0];

  it('without the domain and certificate in context, asks for them as stack parameters (a deploy without them fails, naming them)', () => {
    expect(Object.keys(root.findParameters('*'))).toEqual(
      expect.arrayContaining(['MediaDomainName', 'MediaCertificateArn']),
    );
    // The nested stack receives the parameter's value from the deployed stack.
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Certificates: [{ CertificateArn: { Ref: Match.stringLikeRegexp('MediaCertificateArn') } }],
    });
  });

  it('takes the measured capacity of a 1 vCPU task (100 calls) and scales at half of it', () => {
    const variables = Object.fromEntries(
      container.Environment.map((v: { Name: string; Value: unknown }) => [v.Name, v.Value]),
    );
    expect(variables.MEDIA_MAX_CALLS).toBe('100');
    expect(task.Properties.Cpu).toBe('1024');
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 50 }),
    });
  });

  it('needs nothing at task start that the operator fills in later: no secret injected, the keys read when a call needs them', () => {
    expect(container.Secrets).toBeUndefined();
    const variables = Object.fromEntries(
      container.Environment.map((v: { Name: string; Value: unknown }) => [v.Name, v.Value]),
    );
    // The one secret read at start is generated by the deploy itself.
    const streamSecret = Object.entries(rootResources).find(([, r]) =>
      /media stream credentials/.test(String(r.Properties?.Description)),
    )!;
    expect(streamSecret[1].Properties.GenerateSecretString).toBeDefined();
    expect(variables.MEDIA_STREAM_SECRET_ARN).toEqual({ Ref: expect.stringMatching(/MediaStreamSecret/) });
    // The provider keys' secret starts empty: the task reads it per call (cached) and names a missing key.
    const voiceSecret = Object.entries(rootResources).find(
      ([id, r]) => r.Type === 'AWS::SecretsManager::Secret' && /VoiceProvidersSecret/.test(id),
    )!;
    expect(JSON.parse(voiceSecret[1].Properties.SecretString)).toEqual({
      deepgramApiKey: '',
      llmApiKey: '',
      elevenLabsApiKey: '',
      realtimeApiKey: '',
    });
    expect(variables.VOICE_PROVIDERS_SECRET_ARN).toEqual({ Ref: expect.stringMatching(/VoiceProvidersSecret/) });
    const taskRole = task.Properties.TaskRoleArn['Fn::GetAtt'][0];
    const reads = Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: { Ref: string }) => role.Ref === taskRole),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: { Action: unknown }) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
      .map((statement: { Resource: unknown }) => JSON.stringify(statement.Resource));
    expect(reads.some((resource) => /VoiceProvidersSecret/.test(resource))).toBe(true);
  });

  it('becomes stable: one task, healthy on a path that needs no key, before the circuit breaker could roll back', () => {
    expect(service.Properties.DeploymentConfiguration).toMatchObject({
      DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      MinimumHealthyPercent: 100,
    });
    // The scaling floor (mediaMinTasks, 1) is the desired count a deploy waits on.
    const target = Object.values(resources).find((r) => r.Type === 'AWS::ApplicationAutoScaling::ScalableTarget')!;
    expect(target.Properties.MinCapacity).toBe(1);
    expect([undefined, 1]).toContain(service.Properties.DesiredCount);
    expect(service.Properties.HealthCheckGracePeriodSeconds).toBeGreaterThanOrEqual(60);
    expect(container.HealthCheck.Command.join(' ')).toContain(HEALTH_PATH);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', { HealthCheckPath: HEALTH_PATH });
  });
});
