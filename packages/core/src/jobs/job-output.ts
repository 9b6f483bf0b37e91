import { open, readFile, rename, writeFile, mkdir, type FileHandle } from "node:fs/promises";
import path from "node:path";

/**
 * A job's output on shared storage, capped: the first half of the limit is kept as it arrives
 * (`head`), and the last half is kept as a sliding window (`tail`); what falls between is omitted
 * and said so when read. Offsets are positions in the whole stream the job wrote, so a reader can
 * follow the output with `next_offset` whatever was omitted.
 *
 * Files in the job's directory:
 * - `head`: append-only, at most `headLimit` bytes;
 * - `tail`: written atomically (temporary file + rename) by the owner every `flushIntervalMs`
 *   and at the end: one JSON line `{"total","tail_start","complete"}` then the tail bytes, so a
 *   reader on another host always sees a window that matches its header.
 * Before any tail exists, `head` alone is the whole output.
 */

export interface JobOutputPaths {
  directory: string;
}

interface TailHeader {
  /** Bytes the job has written in all. */
  total: number;
  /** Stream offset of the first tail byte. */
  tail_start: number;
  /** The writer has closed the output (the job ended). */
  complete: boolean;
}

export class JobOutputWriter {
  readonly #directory: string;
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: FileHandle | undefined;
  #headBytes = 0;
  #total = 0;
  /** Chunks of the tail window, oldest first; their sizes add up to at most #tailLimit after trimming. */
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  private constructor(directory: string, limitBytes: number, flushIntervalMs: number) {
    this.#directory = directory;
    this.#headLimit = Math.ceil(limitBytes / 2);
    this.#tailLimit = Math.floor(limitBytes / 2);
    this.#timer = setInterval(() => void this.#flushTail(false), flushIntervalMs);
    this.#timer.unref();
  }

  /** Creates the job's output directory and an empty head. Default flush interval 500 ms. */
  static async create(directory: string, limitBytes: number, flushIntervalMs = 500): Promise<JobOutputWriter> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const writer = new JobOutputWriter(directory, limitBytes, flushIntervalMs);
    writer.#head = await open(path.join(directory, "head"), "w", 0o600);
    return writer;
  }

  /** Takes the next chunk of output (called in stream order). */
  append(chunk: Buffer): void {
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = rest.subarray(0, this.#headLimit - this.#headBytes);
      this.#headBytes += take.length;
      const head = this.#head;
      this.#writing = this.#writing.then(() => head?.write(take).then(() => undefined));
      rest = rest.subarray(take.length);
    }
    this.#total += chunk.length;
    if (rest.length === 0) return;
    this.#tail.push(Buffer.from(rest));
    this.#tailBytes += rest.length;
    while (this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) this.#tailBytes -= this.#tail.shift()!.length;
    this.#dirty = true;
  }

  /** Writes what is pending and marks the output complete. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#writing;
    await this.#head?.close();
    this.#head = undefined;
    await this.#flushTail(true);
  }

  async #flushTail(complete: boolean): Promise<void> {
    if (!this.#dirty && !complete) return;
    if (!complete && this.#tailBytes === 0) return;
    this.#dirty = false;
    let window = Buffer.concat(this.#tail);
    if (window.length > this.#tailLimit) window = window.subarray(window.length - this.#tailLimit);
    const header: TailHeader = { total: this.#total, tail_start: this.#total - window.length, complete };
    const temporary = path.join(this.#directory, `tail.${process.pid}.${Date.now()}.tmp`);
    this.#writing = this.#writing.then(async () => {
      await writeFile(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), window]), { mode: 0o600 });
      await rename(temporary, path.join(this.#directory, "tail"));
    });
    await this.#writing;
  }
}

export interface JobOutputSlice {
  /** UTF-8 text of the bytes returned (an omitted middle is announced in it). */
  output: string;
  offset: number;
  next_offset: number;
  /** The job has ended and `next_offset` is the end of its output. */
  complete: boolean;
}

/**
 * Reads up to `maxBytes` of a job's output from stream offset `offset`. An offset inside the
 * omitted middle continues at the first kept tail byte, with a line saying how much was skipped.
 * `finished`: the job has ended (from Postgres), so the output will not grow.
 */
export async function readJobOutput(directory: string, input: { offset: number; maxBytes: number; finished: boolean }): Promise<JobOutputSlice> {
  const head = await readFile(path.join(directory, "head")).catch(() => Buffer.alloc(0));
  const tailFile = await readFile(path.join(directory, "tail")).catch(() => undefined);
  let header: TailHeader | undefined;
  let tail = Buffer.alloc(0);
  if (tailFile !== undefined) {
    // Written whole and renamed into place by the owner, so a tail that does not parse was not ours
    // to read (a file someone put there): it is ignored rather than answered with a 500.
    const newline = tailFile.indexOf(0x0a);
    header = parseTailHeader(tailFile.subarray(0, Math.max(0, newline)).toString("utf8"));
    if (header !== undefined) tail = tailFile.subarray(newline + 1);
  }
  const total = header?.total ?? head.length;
  const complete = input.finished && (header === undefined || header.complete);
  let offset = Math.max(0, input.offset);
  let omitted = "";
  let bytes: Buffer;
  if (offset < head.length) {
    bytes = head.subarray(offset, offset + input.maxBytes);
  } else if (header !== undefined && offset < total) {
    if (offset < header.tail_start) {
      omitted = `[... ${header.tail_start - offset} bytes of output omitted (job_output_limit_bytes keeps the first and last halves) ...]\n`;
      offset = header.tail_start;
    }
    bytes = tail.subarray(offset - header.tail_start, offset - header.tail_start + input.maxBytes);
  } else {
    bytes = Buffer.alloc(0);
    offset = Math.min(offset, total);
  }
  const nextOffset = offset + bytes.length;
  return { output: omitted + bytes.toString("utf8"), offset: input.offset, next_offset: nextOffset, complete: complete && nextOffset >= total };
}

function parseTailHeader(text: string): TailHeader | undefined {
  try {
    const value = JSON.parse(text) as Partial<TailHeader>;
    if (typeof value.total === "number" && typeof value.tail_start === "number" && typeof value.complete === "boolean") return value as TailHeader;
  } catch {
    // not a header
  }
  return undefined;
}
