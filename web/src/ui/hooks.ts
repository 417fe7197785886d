import { useCallback, useEffect, useRef, useState } from 'react'

export interface Loaded<T> {
  data: T | undefined
  error: Error | undefined
  loading: boolean
  reload: () => Promise<void>
  set: (f: (d: T | undefined) => T | undefined) => void
}

/** Loads `load()` now and whenever `deps` change; `reload` reads again without clearing the shown data. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>()
  const [error, setError] = useState<Error>()
  const [loading, setLoading] = useState(true)
  const loader = useRef(load)
  loader.current = load
  const generation = useRef(0)

  const reload = useCallback(async () => {
    const mine = ++generation.current
    setLoading(true)
    try {
      const d = await loader.current()
      if (mine === generation.current) {
        setData(d)
        setError(undefined)
      }
    } catch (e) {
      if (mine === generation.current) setError(e as Error)
    } finally {
      if (mine === generation.current) setLoading(false)
    }
  }, [])

  useEffect(() => void reload(), deps)
  return { data, error, loading, reload, set: (f) => setData((d) => f(d)) }
}

/** Calls `f` every `ms` while `active` and the page is visible. */
export function usePolling(f: () => void, ms: number, active: boolean): void {
  const fn = useRef(f)
  fn.current = f
  useEffect(() => {
    if (!active) return
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') fn.current()
    }, ms)
    return () => clearInterval(id)
  }, [ms, active])
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
