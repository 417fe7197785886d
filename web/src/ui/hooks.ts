import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react'
import { ApiError } from '../api/client'
import { messageOf } from './parts'

interface Loaded<T> {
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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** How a form explains a failed submission; by default the problem's field messages and its detail. */
export interface Explain {
  fields?: (err: ApiError) => Record<string, string>
  message?: (err: unknown) => string
}

/** A form's submission: busy while the action runs; afterwards its field messages and a message. */
export function useSubmit() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [fields, setFields] = useState<Record<string, string>>({})
  const submit = async (e: FormEvent, action: () => Promise<void>, explain: Explain = {}) => {
    e.preventDefault()
    setBusy(true)
    setError(undefined)
    setFields({})
    try {
      await action()
    } catch (err) {
      if (err instanceof ApiError) setFields(explain.fields?.(err) ?? err.fields)
      setError(explain.message?.(err) ?? messageOf(err))
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, fields, submit }
}
