import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { stepFunctions } from '../aws/clients.ts';
import { requiredSetting, type SettingName } from '../config/settings.ts';

function stateMachineArn(envVar: string): string {
  return requiredSetting(envVar as SettingName);
}

/**
 * Starts a state machine execution under a name derived from the work it does: Step Functions
 * refuses a second execution of the same name, so a retried start never runs the work twice.
 */
export async function startNamedExecution(envVar: string, name: string, input: unknown): Promise<void> {
  try {
    await stepFunctions().send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn(envVar), name, input: JSON.stringify(input) }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    throw error;
  }
}

/** Stops the named execution if it is running. */
export async function stopExecution(envVar: string, name: string): Promise<void> {
  const executionArn = `${stateMachineArn(envVar).replace(':stateMachine:', ':execution:')}:${name}`;
  try {
    await stepFunctions().send(new StopExecutionCommand({ executionArn, cause: 'Campaign paused or cancelled' }));
  } catch (error) {
    if (!(error instanceof ExecutionDoesNotExist)) throw error;
  }
}
