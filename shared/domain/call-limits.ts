/** The longest a call may last (MAX_CALL_SECONDS, default one hour): the media service hangs up then and caps the recording. */
export const MAX_CALL_SECONDS = Number(process.env.MAX_CALL_SECONDS ?? 3600);
