/** The console's pages are addressed by the location hash (`#/calls/<agent>/<run>`), so any static host serves it. */
import { useEffect, useState } from 'preact/hooks';

const segmentsOf = (hash: string): string[] =>
  hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);

/** Asked before the console leaves the page shown (a page with unsaved changes); false stays. */
let leaveGuard: (() => boolean) | null = null;

export function useRoute(): string[] {
  const [segments, setSegments] = useState(segmentsOf(location.hash));
  useEffect(() => {
    let shown = location.hash;
    const follow = () => {
      if (location.hash === shown) return;
      // Staying: the address goes back to the page shown, without a new history entry.
      if (leaveGuard && !leaveGuard()) return history.replaceState(null, '', shown);
      shown = location.hash;
      setSegments(segmentsOf(location.hash));
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return segments;
}

/**
 * While `unsaved`, leaving the page asks `question` first: another page of the console (a link,
 * the back button) and closing or reloading the tab (the browser's own question, beforeunload).
 */
export function useLeaveGuard(unsaved: boolean, question: string): void {
  useEffect(() => {
    if (!unsaved) return;
    const guard = () => confirm(question);
    const unload = (event: BeforeUnloadEvent) => event.preventDefault();
    leaveGuard = guard;
    addEventListener('beforeunload', unload);
    return () => {
      if (leaveGuard === guard) leaveGuard = null;
      removeEventListener('beforeunload', unload);
    };
  }, [unsaved, question]);
}

export const href = (...segments: (string | number)[]): string =>
  `#/${segments.map((segment) => encodeURIComponent(String(segment))).join('/')}`;

export const navigate = (...segments: (string | number)[]): void => {
  location.hash = href(...segments);
};
