/**
 * The report on Today (DESIGN §9.4, `…/report`): this week's (or month's) windows per habit, done
 * out of due, and the experience and gold earned in it.
 */
import { useState } from 'react'
import { avatarReport } from '../api/player-data'
import type { Report, ReportPeriod } from '../api/types'
import { useGame } from '../game'
import { useReloadOn } from '../live'
import { formatDate } from '../time'
import { addDays } from '../../../src/platform/time/index.js'
import { useLoad } from '../ui/hooks'
import { Bar, Empty, ErrorNotice, Loading, Section } from '../ui/parts'
import { Icon } from '../ui/icons'

const PERIODS: { period: ReportPeriod; label: string }[] = [
  { period: 'week', label: 'Week' },
  { period: 'month', label: 'Month' },
]

export function ReportCard() {
  const game = useGame()
  const [period, setPeriod] = useState<ReportPeriod>('week')
  // The hero's experience and money as shown (by the stream or a reading): a reward landing reads the report again.
  const purse = game.avatar && `${game.avatar.level.levelNumber}/${game.avatar.level.currentExperience}/${game.avatar.money.amount}`
  const report = useLoad(() => avatarReport(game.avatarId, period), [game.avatarId, period, purse])
  // A completion or a miss changes the counts, from this device or another.
  useReloadOn(['HabitAttended', 'HabitMissed', 'HabitCreated', 'HabitDeleted'], report.reload)

  const toggle = (
    <div className="segmented" role="radiogroup" aria-label="Report period">
      {PERIODS.map(({ period: p, label }) => (
        <label key={p} className={period === p ? 'on' : ''}>
          <input type="radio" name="report-period" value={p} checked={period === p} onChange={() => setPeriod(p)} />
          {label}
        </label>
      ))}
    </div>
  )
  return (
    <Section title={period === 'week' ? 'This week' : 'This month'} actions={toggle}>
      {report.error && <ErrorNotice error={report.error} />}
      {!report.data && !report.error && <Loading what="the report" />}
      {report.data && <ReportBody report={report.data} />}
    </Section>
  )
}

function ReportBody({ report }: { report: Report }) {
  return (
    <div className="report" data-testid="report">
      <p className="muted small-text">{formatDate(report.from)} to {formatDate(addDays(report.to, -1))}</p>
      <p className="report-earned">
        <span className="pill" data-testid="report-experience">+{report.experience} XP</span>
        <span className="pill gold" data-testid="report-money"><Icon name="coin" size={14} /> +{report.money} gold</span>
      </p>
      {report.habits.length === 0 && <Empty>No habits were due in this period.</Empty>}
      <ul className="report-habits" aria-label="Done out of due, per habit">
        {report.habits.map((h) => (
          <li key={h.habitId}>
            <Bar label={h.title} value={h.done} max={h.due} kind="xp" />
            {(h.missed > 0 || h.frozen > 0) && (
              <p className="report-misses small-text">
                {h.missed > 0 && <span className="danger-pill">{h.missed} missed</span>}
                {h.frozen > 0 && <span className="freeze-text">{h.frozen} frozen</span>}
              </p>
            )}
          </li>
        ))}
      </ul>
    </div>
  )
}
