/**
 * Evaluated before Powertools Tracer loads the X-Ray SDK (tracer.ts imports it first). Outside an
 * AWS execution environment (the local stack, tests, scripts) the Tracer is off, so the SDK is put
 * in manual mode: in its default automatic mode it installs cls-hooked's async hook as it loads,
 * and that hook runs JavaScript for every promise and async resource of the process (measured: a
 * loop of 500,000 awaits takes 60 ms without it, 740-1,000 ms with it). On Lambda (and ECS)
 * nothing changes: automatic mode carries the invocation's segment to the SDK calls' subsegments.
 */
if (!process.env.AWS_EXECUTION_ENV) process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
