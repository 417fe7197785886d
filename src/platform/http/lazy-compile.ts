/**
 * Compiling every route's validators (ajv) and response serializers (fast-json-stringify) when
 * the server got ready took most of its start-up. Each is compiled instead on its first use; the
 * ones still waiting can be compiled in the background once the process serves
 * (`LazyCompiles.compileAll`), so the first requests do not pay for them either.
 */
type Fn = (...args: never[]) => unknown

/**
 * A function with `fn`'s signature that compiles the real one on its first call. `copy` carries
 * properties the caller reads from the function after a call (ajv's `errors`).
 */
export function compileOnFirstUse<F extends Fn>(compile: () => F, copy?: (from: F, to: F) => void, pending?: LazyCompiles): F {
  let compiled: F | undefined
  const ensure = (): F => {
    if (!compiled) {
      compiled = compile()
      pending?.done(ensure)
    }
    return compiled
  }
  pending?.add(ensure)
  const lazy = ((...args: Parameters<F>) => {
    const fn = ensure()
    const result = fn(...args)
    copy?.(fn, lazy)
    return result
  }) as F
  return lazy
}

/** The compilations one server has put off. */
export class LazyCompiles {
  private readonly pending = new Set<() => unknown>()

  add(compile: () => unknown): void {
    this.pending.add(compile)
  }

  done(compile: () => unknown): void {
    this.pending.delete(compile)
  }

  get size(): number {
    return this.pending.size
  }

  /**
   * Compiles what has not been used yet, one at a time between other work (requests go first).
   * A schema that fails to compile is reported to `onError` (and fails again on its first use).
   */
  async compileAll(onError: (e: unknown) => void = () => {}): Promise<number> {
    let count = 0
    for (const compile of [...this.pending]) {
      await new Promise((resolve) => setImmediate(resolve))
      if (!this.pending.has(compile)) continue
      try {
        compile()
        count++
      } catch (e) {
        this.pending.delete(compile)
        onError(e)
      }
    }
    return count
  }
}
