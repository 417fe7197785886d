/**
 * A job's work in batches, until one comes back short: each call of `runBatch` takes up to `size`
 * rows (claiming them, so replicas take different ones) and answers how many it took. A short
 * batch means nothing more is due now. At most `maxBatches` are run: what is left waits for the
 * job's next run.
 */
export async function inBatches(size: number, runBatch: () => Promise<number>, maxBatches = Number.POSITIVE_INFINITY): Promise<void> {
  for (let batches = 1; (await runBatch()) >= size && batches < maxBatches; batches++) {
    // The next batch.
  }
}
