/** What a hibernatable provider socket remembers across evictions. */
export interface SocketAttachment {
  providerId: string;
  /** Decimal text of the binding id (u64). */
  bindingId: string;
}

/** The attachment a provider socket was accepted with (`null` for a socket without one). */
export function attachmentOf(ws: WebSocket): SocketAttachment | null {
  return ws.deserializeAttachment() as SocketAttachment | null;
}
