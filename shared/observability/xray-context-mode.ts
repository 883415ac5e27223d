/**
 * Imported before the X-Ray SDK, which reads AWS_XRAY_MANUAL_MODE once, when it loads. In its
 * default automatic mode the SDK installs async hooks that run on every promise of the process,
 * whether or not anything is traced. The Tracer traces only in a Lambda execution environment
 * (AWS_EXECUTION_ENV, set by the Lambda runtime); anywhere else (the local stack, tests) nothing
 * reads that context, so the SDK loads in manual mode there. On Lambda nothing changes.
 */
if (!process.env.AWS_EXECUTION_ENV) process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
