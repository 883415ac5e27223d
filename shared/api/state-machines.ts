/**
 * Step Functions state machines, each defined by one ASL file in `statemachines/` that runs
 * unchanged on AWS (CDK `DefinitionBody.fromFile`) and locally (aws-local-stepfunctions).
 * Task states name a Lambda through a `${<group>FunctionArn}` substitution; locally the same
 * handler runs in-process, looked up by the Task state's name.
 */
export interface StateMachineSpec {
  /** Logical name; the ARN reaches handlers in the environment variable `envVar`. */
  name: string;
  definitionFile: string;
  envVar: string;
  /** Task state name → function group whose handler the state invokes. */
  tasks: Record<string, string>;
}

export const STATE_MACHINES: StateMachineSpec[] = [
  {
    name: 'call-lifecycle',
    definitionFile: 'statemachines/call-lifecycle.asl.json',
    envVar: 'CALL_LIFECYCLE_STATE_MACHINE_ARN',
    tasks: { Dial: 'callLifecycle', EnsureEnded: 'callLifecycle', DialFailed: 'callLifecycle' },
  },
  {
    name: 'webhook-delivery',
    definitionFile: 'statemachines/webhook-delivery.asl.json',
    envVar: 'WEBHOOK_DELIVERY_STATE_MACHINE_ARN',
    tasks: { Attempt: 'webhookDelivery' },
  },
  {
    name: 'campaign-engine',
    definitionFile: 'statemachines/campaign-engine.asl.json',
    envVar: 'CAMPAIGN_ENGINE_STATE_MACHINE_ARN',
    tasks: { Step: 'campaignEngine', ContinueAsNew: 'campaignEngine' },
  },
  {
    name: 'agent-test-run',
    definitionFile: 'statemachines/agent-test-run.asl.json',
    envVar: 'AGENT_TEST_RUN_STATE_MACHINE_ARN',
    tasks: { RunCase: 'agentTestRunner', CaseCrashed: 'agentTestRunner', Complete: 'agentTestRunner' },
  },
];
