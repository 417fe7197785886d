/**
 * A habit's statistics (DESIGN §9.4, `…/stats`): how often it was done in its due windows over a
 * week, a month and a year; its streaks and completions; and its strength, drawn as a gauge.
 */
import { habitStats } from '../api/player-data'
import type { HabitStats } from '../api/types'
import { useLoad } from '../ui/hooks'
import { ErrorNotice, Loading } from '../ui/parts'

/** A rate as a player reads it: `0.8` → `80%`; no due window yet → `–`. */
const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '–' : `${Math.round(rate * 100)}%`)

const RATES: { key: keyof HabitStats['completionRate']; label: string }[] = [
  { key: 'days7', label: '7 days' },
  { key: 'days30', label: '30 days' },
  { key: 'days365', label: '365 days' },
]

/** Loads again whenever `version` changes (a completion since). */
export function HabitStatsPanel({ habitId, title, version }: { habitId: string; title: string; version: unknown }) {
  const stats = useLoad(() => habitStats(habitId), [habitId, version])
  if (stats.error) return <ErrorNotice error={stats.error} />
  if (!stats.data) return <Loading what="statistics" />
  const s = stats.data
  return (
    <div className="habit-stats" data-testid="habit-stats">
      <StrengthGauge strength={s.strength} title={title} />
      <dl className="habit-stats-list">
        {RATES.map(({ key, label }) => (
          <div key={key}>
            <dt>Done, {label}</dt>
            <dd className="num" data-testid={`rate-${key}`}>{percent(s.completionRate[key])}</dd>
          </div>
        ))}
        <div><dt>Current streak</dt><dd className="num" data-testid="current-streak">{s.currentStreak}</dd></div>
        <div><dt>Best streak</dt><dd className="num" data-testid="best-streak">{s.bestStreak}</dd></div>
        <div><dt>Completions</dt><dd className="num" data-testid="total-completions">{s.totalCompletions}</dd></div>
      </dl>
    </div>
  )
}

/** The gauge's geometry: a ring of this radius in a 64×64 box, drawn from the top clockwise. */
const R = 26
const CIRCUMFERENCE = 2 * Math.PI * R

/** Strength 0–100 as a ring filled that far, its number in the middle. */
function StrengthGauge({ strength, title }: { strength: number; title: string }) {
  const value = Math.max(0, Math.min(100, Math.round(strength)))
  return (
    <figure className="strength">
      <svg viewBox="0 0 64 64" width="88" height="88" role="img" aria-label={`Strength of ${title}: ${value} of 100`}>
        <circle className="strength-track" cx="32" cy="32" r={R} />
        <circle className="strength-fill" cx="32" cy="32" r={R} transform="rotate(-90 32 32)"
          strokeDasharray={`${(CIRCUMFERENCE * value) / 100} ${CIRCUMFERENCE}`} />
        <text x="32" y="32" className="strength-value" textAnchor="middle" dominantBaseline="central" data-testid="strength">{value}</text>
      </svg>
      <figcaption>Strength</figcaption>
    </figure>
  )
}
