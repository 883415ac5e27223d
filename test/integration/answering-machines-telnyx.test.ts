import { describeAnsweringMachines } from '../support/answering-machines.ts';

/** Answering machines through the local Telnyx (the local Twilio: answering-machines.test.ts). */
describeAnsweringMachines('telnyx');
