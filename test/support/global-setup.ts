// Placeholder until the migrated template database lands (see test/support/database.ts).
export default async function setup(): Promise<void> {}
