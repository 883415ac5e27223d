/**
 * TanStack Query's `useMutation` for the console, with its function read at the call: the hook hands
 * new options to its observer in an effect, which Preact runs after the next frame, so a form sent
 * between a keystroke's render and that frame (a loaded machine, a quick Enter) ran the previous
 * render's function, with the fields as they were before. Here the observer always calls the
 * function of the latest render. Import `useMutation` from here, not from the package (lint rule).
 */
import {
  useMutation as useQueryMutation,
  type DefaultError,
  type UseMutationOptions,
  type UseMutationResult,
} from '@tanstack/preact-query';
import { useRef } from 'preact/hooks';

export function useMutation<TData = unknown, TError = DefaultError, TVariables = void, TContext = unknown>(
  options: UseMutationOptions<TData, TError, TVariables, TContext>,
): UseMutationResult<TData, TError, TVariables, TContext> {
  const latest = useRef(options.mutationFn);
  latest.current = options.mutationFn;
  return useQueryMutation({
    ...options,
    mutationFn: (variables, context) => latest.current!(variables, context),
  });
}
