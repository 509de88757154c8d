/** A database that cannot be used as it is. The message is one line and says what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}
