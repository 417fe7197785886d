import type { Avatar } from '../api/types'
import { Bar } from './parts'
import { Icon } from './icons'

export function AvatarCard({ avatar }: { avatar: Avatar }) {
  return (
    <section className="card avatar-card" aria-label="Your hero">
      <div className="avatar-head">
        <div className="avatar-portrait" aria-hidden="true">{avatar.name.trim().charAt(0).toUpperCase() || '?'}</div>
        <div className="avatar-title">
          <h2 className="ellipsis" title={avatar.name}>{avatar.name}</h2>
          <p className="muted">
            <span className="pill" data-testid="level">Level {avatar.level.levelNumber}</span>{' '}
            <span className="pill gold" data-testid="money"><Icon name="coin" size={14} /> {avatar.money.amount} gold</span>
            {avatar.streakFreezes && <>{' '}<Freezes held={avatar.streakFreezes.held} max={avatar.streakFreezes.max} /></>}
          </p>
        </div>
      </div>
      <Bar kind="health" label="Health" value={avatar.health.current} max={avatar.health.max} />
      <Bar kind="mana" label="Mana" value={avatar.mana.amount} max={avatar.mana.max} />
      <Bar kind="xp" label="Experience" value={avatar.level.currentExperience} max={avatar.level.experienceRequired} />
    </section>
  )
}

/** Streak freezes held: each takes the damage of one missed window and keeps the streak. */
function Freezes({ held, max }: { held: number; max: number }) {
  const text = `${held} of ${max} streak freezes: each takes the blow of one missed window and keeps the streak. One comes with every 7 in a row; an Ice Crystal adds one.`
  return (
    <span className="pill freeze" data-testid="freezes" title={text} aria-label={`Streak freezes ${held} of ${max}`}>
      <Icon name="snowflake" size={14} /> {held}/{max}
    </span>
  )
}
