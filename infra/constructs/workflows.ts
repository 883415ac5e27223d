import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { STATE_MACHINES, type StateMachineSpec } from '../../shared/api/state-machines.ts';
import { acknowledge, wildcardResourceFinding } from '../nag.ts';
import { REPO_ROOT } from '../paths.ts';
import type { Functions, StateMachineRef } from './functions.ts';

/**
 * State machines get fixed names so their ARNs are known before they exist: functions need the
 * ARN (environment, IAM) while the state machines need the functions' ARNs (substitutions), and
 * references both ways would be a CloudFormation cycle.
 */
export function stateMachineRefs(scope: Construct): StateMachineRef[] {
  const stack = Stack.of(scope);
  return STATE_MACHINES.map((spec) => {
    const name = stateMachineName(stack, spec);
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({ service: 'states', resource, resourceName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    return { envVar: spec.envVar, arn: arn('stateMachine', name), executionArns: arn('execution', `${name}:*`) };
  });
}

function stateMachineName(stack: Stack, spec: StateMachineSpec): string {
  return `${stack.stackName}-${spec.name}`;
}

/** Groups an ASL file invokes: the registry's `tasks` plus any `${<group>FunctionArn}` in the file. */
function invokedGroups(spec: StateMachineSpec, definition: string): string[] {
  const inFile = [...definition.matchAll(/\$\{(\w+)FunctionArn\}/g)].map((m) => m[1]!);
  return [...new Set([...Object.values(spec.tasks), ...inFile])];
}

export interface WorkflowsProps {
  functions: Functions;
  logRetention?: RetentionDays;
}

/** One Step Functions state machine per STATE_MACHINES entry, from its ASL file. */
export class Workflows extends Construct {
  readonly stateMachines = new Map<string, StateMachine>();

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    for (const spec of STATE_MACHINES) {
      const file = join(REPO_ROOT, spec.definitionFile);
      const groups = invokedGroups(spec, readFileSync(file, 'utf8'));
      const logGroup = new LogGroup(this, `${spec.name}Logs`, {
        // The /aws/vendedlogs/ prefix keeps the CloudWatch Logs resource policy from growing per state machine.
        logGroupName: `/aws/vendedlogs/states/${stateMachineName(stack, spec)}`,
        retention: props.logRetention ?? RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const stateMachine = new StateMachine(this, spec.name, {
        stateMachineName: stateMachineName(stack, spec),
        definitionBody: DefinitionBody.fromFile(file),
        definitionSubstitutions: Object.fromEntries(
          groups.map((g) => [`${g}FunctionArn`, props.functions.get(g).functionArn]),
        ),
        // Every event, but not state input/output: it carries phone numbers and customer context.
        logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
        tracingEnabled: true,
      });
      for (const g of groups) props.functions.get(g).grantInvoke(stateMachine);
      acknowledge(
        stateMachine.role,
        'grantInvoke adds <function>:* so Task states may call versions and aliases of their own functions.',
        ...groups.map((g) => wildcardResourceFinding(stateMachine, `${props.functions.get(g).functionArn}:*`)),
      );
      acknowledge(
        stateMachine.role,
        'X-Ray tracing and CloudWatch Logs delivery (logs:CreateLogDelivery, ...) do not support resource-level permissions.',
        'AwsSolutions-IAM5[Resource::*]',
      );
      this.stateMachines.set(spec.name, stateMachine);
    }
  }
}
