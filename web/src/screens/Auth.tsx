import { useState, type FormEvent } from 'react'
import { ApiError } from '../api/client'
import { login, register } from '../api/game'
import { setSession } from '../api/session'
import { Link, navigate } from '../router'
import { useSubmit } from '../ui/hooks'
import { Field, Notice, messageOf } from '../ui/parts'
import { Icon } from '../ui/icons'

/** Register and sign in. Field messages come from the problem's `errors`, next to their field. */
export function AuthScreen({ mode, notice }: { mode: 'login' | 'register'; notice?: string | undefined }) {
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const { busy, error, fields, submit: run } = useSubmit()

  const submit = (e: FormEvent) => run(e, async () => {
    const answer = mode === 'register' ? await register({ name, email, password }) : await login({ email, password })
    setSession(answer)
    navigate('/', true)
  }, {
    message: (err) => err instanceof ApiError
      ? err.slug === 'email-taken' ? 'An account with this email already exists. Sign in instead?'
        : err.slug === 'invalid-credentials' ? 'That email and password do not match an account.'
        : err.status === 429 ? 'Too many failed attempts. Wait a few minutes and try again.'
        : err.message
      : messageOf(err),
  })

  return (
    <main className="auth" id="main">
      <div className="auth-card card">
        <h1 className="brand-title"><Icon name="battle" size={28} /> Questline</h1>
        <p className="tagline">Your habits grow a hero.</p>
        <h2>{mode === 'register' ? 'Create your hero' : 'Sign in'}</h2>
        {notice && <Notice kind="warn">{notice}</Notice>}
        <form onSubmit={submit} noValidate>
          {mode === 'register' && (
            <Field label="Hero name" error={fields.name}>
              {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.name} value={name} onChange={(e) => setName(e.target.value)} autoComplete="nickname" maxLength={64} />}
            </Field>
          )}
          <Field label="Email" error={fields.email}>
            {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.email} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" />}
          </Field>
          <Field label="Password" error={fields.password} {...(mode === 'register' ? { hint: 'At least 8 characters.' } : {})}>
            {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.password} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete={mode === 'register' ? 'new-password' : 'current-password'} />}
          </Field>
          {error && <Notice kind="error">{error}</Notice>}
          <button className="primary wide" type="submit" disabled={busy} aria-busy={busy || undefined}>
            {mode === 'register' ? 'Create account' : 'Sign in'}
          </button>
        </form>
        <p className="switch">
          {mode === 'register' ? <>Already playing? <Link to="/login">Sign in</Link></> : <>New here? <Link to="/register">Create an account</Link></>}
        </p>
      </div>
    </main>
  )
}
