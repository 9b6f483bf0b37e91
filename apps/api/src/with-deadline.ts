/**
 * Settles as `promise` does, or, when it has not settled within `ms`, as `onDeadline()` does: return a
 * value to go on without it, throw to reject. The timer is cleared either way, so it never holds the
 * process open; a late settlement of `promise` is ignored.
 */
export async function withDeadline<T, D = never>(promise: Promise<T>, ms: number, onDeadline: () => D): Promise<T | D> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<D>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onDeadline());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
