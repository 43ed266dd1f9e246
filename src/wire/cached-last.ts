// A one-entry cache, for work repeated on the same input over and over (every callback to a Connector's URL).

/** `compute`, run again only when its key differs from the last one's. A throw is not cached. */
export function cachedLast<T>(compute: (key: string) => T): (key: string) => T {
  let last: { key: string; value: T } | null = null;
  return (key) => {
    if (last?.key !== key) last = { key, value: compute(key) };
    return last.value;
  };
}
