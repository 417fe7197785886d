import { useEffect, useRef, useState } from 'react'
import { ApiError } from '../api/client'
import { attack, battleHistory, bosses, cancelBattle, getStats, myGuild, startBattle } from '../api/game'
import { GUILD_CHANGES, type LivePayloads } from '../api/live'
import type { Attack, Avatar, Battle, Boss, BossType, Guild } from '../api/types'
import { DEATH_EXPLAINED, useGame } from '../game'
import { useLiveEvent, useReloadOn } from '../live'
import { Link } from '../router'
import { useLoad } from '../ui/hooks'
import { Action, Bar, Empty, ErrorNotice, Loading, Notice, Section, messageOf } from '../ui/parts'
import { Icon } from '../ui/icons'

/** The guild's battle: the one in progress, else the latest finished one. */
async function currentBattle(guildId: string): Promise<Battle | null> {
  const history = await battleHistory(guildId)
  return history.find((b) => b.status === 'IN_PROGRESS') ?? history[0] ?? null
}

/** The battle after a turn the stream tells of (any member's); a turn already shown changes nothing. */
function withTurn(b: Battle, t: LivePayloads['BattleTurnTaken']): Battle {
  if (t.battleId !== b.id || t.turn <= b.currentTurn) return b
  return {
    ...b,
    currentTurn: t.turn,
    numOfTurns: t.numOfTurns,
    bossRemainingHealth: t.bossHealth,
    status: t.status,
    participants: b.participants.map((p) => (p.avatarId === t.avatarId
      ? { ...p, damageDealt: p.damageDealt + t.dealt, attacks: p.attacks + 1, fallen: p.fallen || t.attackerFell }
      : p)),
  }
}

export function BattleScreen() {
  const game = useGame()
  const guild = useLoad(() => myGuild(game.avatarId), [game.avatarId])
  useReloadOn(GUILD_CHANGES, guild.reload)
  return (
    <div className="screen">
      <h1>Battle</h1>
      {guild.error && <ErrorNotice error={guild.error} />}
      {guild.data === undefined && !guild.error && <Loading what="your guild" />}
      {guild.data === null && <Notice>Battles are fought by guilds. <Link to="/guild">Join or found a guild</Link> first.</Notice>}
      {guild.data && <GuildBattle guild={guild.data} />}
    </div>
  )
}

function GuildBattle({ guild }: { guild: Guild }) {
  const game = useGame()
  /** The latest turn the stream showed: a reading that misses it was made before it committed. */
  const streamedTurn = useRef<{ battleId: string; turn: number } | null>(null)
  const battle = useLoad(async () => {
    const read = await currentBattle(guild.id)
    const s = streamedTurn.current
    return read && s?.battleId === read.id && read.currentTurn < s.turn ? currentBattle(guild.id) : read
  }, [guild.id])
  const stats = useLoad(() => getStats(game.avatarId), [game.avatarId])
  const [last, setLast] = useState<Attack>()
  const [error, setError] = useState<string>()
  const seen = useRef<{ id: string; status: string } | null>(null)
  /** The hero before the blow that may end the battle: rewards are measured from here. */
  const beforeEnd = useRef<Avatar | undefined>(undefined)
  const b = battle.data
  const inProgress = b?.status === 'IN_PROGRESS'

  // The end of a battle (our last blow or a guildmate's) pays by events: read the avatar again.
  const { awaitRewards, avatar } = game
  useEffect(() => {
    if (b && seen.current?.id === b.id && seen.current.status === 'IN_PROGRESS' && b.status !== 'IN_PROGRESS') {
      void awaitRewards(beforeEnd.current ?? avatar, b.status === 'WON' ? `Victory over ${b.boss.name}` : `Defeat by ${b.boss.name}`)
      beforeEnd.current = undefined
    }
    seen.current = b ? { id: b.id, status: b.status } : null
    // Only a change of the battle's status matters here.
  }, [b?.id, b?.status])

  // Every member's turn, with the boss's health after it, comes by the stream; a new battle and an
  // outcome are read again (the outcome's end time, the next battle's participants).
  useLiveEvent('BattleTurnTaken', (e) => {
    const t = e.payload
    if (t.guildId !== guild.id) return
    const before = streamedTurn.current
    streamedTurn.current = { battleId: t.battleId, turn: before?.battleId === t.battleId ? Math.max(before.turn, t.turn) : t.turn }
    battle.set((current) => current && withTurn(current, t))
  })
  useReloadOn(['BattleStarted', 'BattleCancelled', 'BattleWon', 'BattleLost'], battle.reload, (e) => e.payload.guildId === guild.id)

  const me = b?.participants.find((p) => p.avatarId === game.avatarId)
  const nick = (id: string) => guild.members.find((m) => m.avatarId === id)?.nickname ?? 'A former member'
  const isLeader = guild.members.some((m) => m.avatarId === game.avatarId && m.role === 'LEADER')

  const strike = async () => {
    if (!b) return
    setError(undefined)
    beforeEnd.current = game.avatar
    try {
      const s = stats.data ?? (await getStats(game.avatarId))
      const a = await attack(b.id, game.avatarId, s.attack)
      setLast(a)
      if (a.attackerFell) game.announce('death', `You fell in this battle. ${DEATH_EXPLAINED}`)
    } catch (e) {
      setError(messageOf(e))
    }
    await Promise.all([battle.reload(), game.reloadAvatar()])
  }

  return (
    <>
      <p className="muted">Guild <strong className="wrap">{guild.name}</strong></p>
      {battle.error && <ErrorNotice error={battle.error} />}
      {!battle.data && !battle.error && battle.loading && <Loading what="the battle" />}
      {b && (
        <section className={`card battle battle-${b.status.toLowerCase()}`} aria-label="Battle">
          <div className="card-head">
            <h2>{b.boss.name}</h2>
            <span className="pill" data-testid="turns">Turn {b.currentTurn} of {b.numOfTurns}</span>
          </div>
          <Bar kind="boss" label="Boss health" value={b.bossRemainingHealth} max={b.boss.health} />
          {b.status === 'WON' && <Notice kind="success"><strong>Victory!</strong> Every participant gains {b.boss.experienceReward} experience and {b.boss.moneyReward} gold.</Notice>}
          {b.status === 'LOST' && <Notice kind="error"><strong>Defeat.</strong> {b.currentTurn >= b.numOfTurns ? 'The turns ran out' : 'Every participant fell'}: each took {b.boss.penalty} damage.</Notice>}
          {inProgress && (
            me ? (
              me.fallen ? <Notice kind="warn">You have fallen in this battle; your guildmates fight on.</Notice> : (
                <div className="attack-row">
                  <Action className="primary big-button" onAction={strike}><Icon name="battle" /> Attack</Action>
                  {stats.data && <span className="muted">Your attack: {stats.data.attack} (the boss's defense is {b.boss.defense})</span>}
                </div>
              )
            ) : <Notice>You joined the guild after this battle started: it is fought by those who were there.</Notice>
          )}
          {error && <Notice kind="error">{error}</Notice>}
          {last && (
            <p className="attack-result" role="status" data-testid="attack-result">
              Turn {last.turn}: you dealt <strong>{last.dealt}</strong> damage.
              {last.strikeBack > 0 && <> {b.boss.name} struck back for <strong>{last.strikeBack}</strong>.</>}
              {last.attackerFell && <strong> You fell!</strong>}
            </p>
          )}
          <h3>Fighters</h3>
          <ul className="rows" aria-label="Fighters">
            {b.participants.map((p) => (
              <li key={p.avatarId} className={`row-item${p.avatarId === game.avatarId ? ' mine' : ''}`}>
                <span className="ellipsis grow">{nick(p.avatarId)}{p.avatarId === game.avatarId && ' (you)'}</span>
                <span className="num">{p.damageDealt} dmg · {p.attacks} hits</span>
                {p.fallen && <span className="pill danger-pill">fallen</span>}
              </li>
            ))}
          </ul>
          {inProgress && isLeader && (
            <Action className="small danger" onAction={async () => {
              if (!window.confirm('Cancel this battle? Nobody gains or loses anything.')) return
              try {
                await cancelBattle(b, game.avatarId)
              } catch (e) {
                setError(messageOf(e))
              }
              await battle.reload()
            }}>Cancel battle</Action>
          )}
        </section>
      )}
      {!inProgress && battle.data !== undefined && <ChooseBoss guild={guild} isLeader={isLeader} onStarted={battle.reload} />}
    </>
  )
}

function ChooseBoss({ guild, isLeader, onStarted }: { guild: Guild; isLeader: boolean; onStarted: () => Promise<void> }) {
  const game = useGame()
  const list = useLoad(bosses, [])
  const [error, setError] = useState<string>()
  const start = async (type: BossType) => {
    setError(undefined)
    try {
      await startBattle(guild.id, type, game.avatarId)
      await onStarted()
    } catch (e) {
      setError(e instanceof ApiError && e.status === 403 ? 'Only the guild leader can start a battle.' : messageOf(e))
    }
  }
  return (
    <Section title="Choose a boss">
      {!isLeader && <Notice>Only your guild's leader can start a battle. Everyone in the guild when it starts fights.</Notice>}
      {list.error && <ErrorNotice error={list.error} />}
      {list.data?.length === 0 && <Empty>No bosses.</Empty>}
      {error && <Notice kind="error">{error}</Notice>}
      <ul className="boss-grid" aria-label="Bosses">
        {list.data?.map((boss: Boss) => (
          <li key={boss.type} className="boss">
            <h3>{boss.name}</h3>
            <dl className="boss-stats">
              <div><dt>Health</dt><dd>{boss.health}</dd></div>
              <div><dt>Strength</dt><dd>{boss.strength}</dd></div>
              <div><dt>Defense</dt><dd>{boss.defense}</dd></div>
              <div><dt>Turns</dt><dd>{boss.turnsPerMember * guild.members.length}</dd></div>
              <div className="wide"><dt>Reward</dt><dd>{boss.experienceReward} XP, {boss.moneyReward} gold</dd></div>
              <div className="wide"><dt>Penalty if lost</dt><dd>{boss.penalty} damage each</dd></div>
            </dl>
            {isLeader && <Action className="primary small" onAction={() => start(boss.type)}>Fight<span className="visually-hidden"> {boss.name}</span></Action>}
          </li>
        ))}
      </ul>
    </Section>
  )
}
