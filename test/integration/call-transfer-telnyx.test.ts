import { describeTransfers } from '../support/call-transfers.ts';

/** Transfers through the local Telnyx (the local Twilio: call-transfer.test.ts). */
describeTransfers('telnyx');
