/**
 * Keeps a command's output within `limitBytes`: the first half and the last half of the budget.
 * Both ends matter to a reader: the head shows what the command started doing, the tail how it
 * ended (the error, the summary line). What falls between is counted, not kept.
 */
export class OutputCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  /** @param limitBytes bytes kept at most (head + tail). */
  constructor(limitBytes: number) {
    this.headLimit = Math.ceil(limitBytes / 2);
    this.tailLimit = Math.floor(limitBytes / 2);
  }

  append(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headLimit) {
      const taken = rest.subarray(0, this.headLimit - this.headSize);
      this.head.push(taken);
      this.headSize += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    while (this.tailSize > this.tailLimit) {
      const first = this.tail[0]!;
      const excess = this.tailSize - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
      }
    }
  }

  /** Bytes the command wrote in total. */
  get totalBytes(): number {
    return this.total;
  }

  /** Bytes dropped from the middle. */
  get omittedBytes(): number {
    return this.total - this.headSize - this.tailSize;
  }

  /** The kept output as text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (this.omittedBytes === 0) return head + tail;
    return `${head}\n[... ${this.omittedBytes} bytes of output omitted ...]\n${tail}`;
  }
}
