import { createApp } from './create-app.ts';

// Entry point of `cdk synth` / `cdk deploy` (see cdk.json); context comes from cdk.json and -c.
const { app } = createApp();
app.synth();
