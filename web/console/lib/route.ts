/** The console's pages are addressed by the location hash (`#/calls/<agent>/<run>`), so any static host serves it. */
import { useEffect, useState } from 'preact/hooks';

const segmentsOf = (hash: string): string[] =>
  hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);

export function useRoute(): string[] {
  const [segments, setSegments] = useState(segmentsOf(location.hash));
  useEffect(() => {
    const follow = () => setSegments(segmentsOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return segments;
}

export const href = (...segments: (string | number)[]): string =>
  `#/${segments.map((segment) => encodeURIComponent(String(segment))).join('/')}`;

export const navigate = (...segments: (string | number)[]): void => {
  location.hash = href(...segments);
};
