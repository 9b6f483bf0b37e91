/** The loop and the store read time only through this, so tests can inject a clock. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
