/**
 * A job's work in batches, until one comes back short: each call of `runBatch` takes up to `size`
 * rows (claiming them, so replicas take different ones) and answers how many it took. A short
 * batch means nothing more is due now.
 */
export async function inBatches(size: number, runBatch: () => Promise<number>): Promise<void> {
  while ((await runBatch()) >= size) {
    // The next batch.
  }
}
