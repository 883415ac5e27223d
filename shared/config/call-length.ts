import { positiveNumberSetting } from './settings.ts';

/**
 * The longest a call may last (MAX_CALL_SECONDS, default one hour): the media service hangs up
 * then and caps the recording; the call watchdog ends a run a margin after it.
 */
export const maxCallSeconds = (): number => positiveNumberSetting('MAX_CALL_SECONDS', 3600);
