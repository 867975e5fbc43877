import { Worker } from 'node:worker_threads'

/**
 * Asks GET /healthz again and again from a worker thread until stopped, and gives the times it took.
 * A thread of its own, as a separate client would be: the bench's own work meanwhile (decoding the
 * subscribers' frames) then adds nothing to what the server is measured to take.
 */
export async function sampleHealth(url: string): Promise<{ stop(): Promise<number[]> }> {
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads')
     const { url, flag } = workerData
     ;(async () => {
       const samples = []
       while (Atomics.load(flag, 0) === 0) {
         const asked = performance.now()
         await fetch(url).then((r) => r.text())
         samples.push(performance.now() - asked)
         if (samples.length === 1) parentPort.postMessage('sampling')
       }
       parentPort.postMessage(samples)
     })()`,
    { eval: true, workerData: { url, flag } },
  )
  const samples = new Promise<number[]>((resolve, reject) => {
    worker.on('message', (message: 'sampling' | number[]) => message !== 'sampling' && resolve(message))
    worker.once('error', reject)
  })
  // Measuring starts once the thread is asking (starting it takes longer than posting a message).
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message) => message === 'sampling' && resolve())
    worker.once('error', reject)
  })
  return {
    async stop() {
      Atomics.store(flag, 0, 1)
      const taken = await samples
      await worker.terminate()
      return taken
    },
  }
}
