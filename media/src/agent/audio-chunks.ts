/**
 * The caller's 20 ms frames gathered into chunks for a speech-to-text stream: one WebSocket write
 * (a masked frame and a system call) per chunk instead of per frame. What is held goes out as it
 * is when the next frame does not come within two chunks' time (the caller's audio stopped).
 */
export interface AudioChunks {
  write(mulaw: Uint8Array): void;
  /** Sends what is held now. */
  flush(): void;
  /** Stops the hold timer (the stream closes); flush first to keep what is held. */
  stop(): void;
}

export function audioChunks(send: (chunk: Uint8Array) => void, chunkMs: number): AudioChunks {
  const chunkBytes = chunkMs * 8; // 8 kHz, one byte a sample
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pendingBytes === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    send(chunk);
  };
  // One timer for the stream, pushed back as each chunk begins: while frames come every 20 ms it
  // never fires; when they stop, what is held goes out.
  const holdLimit = setTimeout(flush, 2 * chunkMs);
  holdLimit.unref();
  return {
    write: (mulaw) => {
      if (mulaw.length === 0) return;
      if (pendingBytes === 0) holdLimit.refresh();
      pending.push(mulaw);
      pendingBytes += mulaw.length;
      if (pendingBytes >= chunkBytes) flush();
    },
    flush,
    stop: () => clearTimeout(holdLimit),
  };
}
