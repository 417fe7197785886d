import { useEffect, useState, type FormEvent } from 'react'
import { ApiError } from '../api/client'
import {
  acceptInvite, createGuild, dropInvite, findGuilds, getAvatar, getGuild, guildInvites, invite, leaderboard, leaveGuild, myGuild, myInvites,
  removeMember, searchAvatars, setRole, transferLeadership,
} from '../api/game'
import { GUILD_CHANGES } from '../api/live'
import type { Avatar, Guild, Invite } from '../api/types'
import { useGame } from '../game'
import { useReloadOn } from '../live'
import { useLoad, useSubmit } from '../ui/hooks'
import { GuildChat } from './guild-chat'
import { Action, Empty, ErrorNotice, Field, Loading, Notice, Section, messageOf } from '../ui/parts'

export function GuildScreen() {
  const game = useGame()
  const guild = useLoad(() => myGuild(game.avatarId), [game.avatarId])
  // Joins, departures, roles, a disbanding: whoever made them, the guild shows them.
  useReloadOn(GUILD_CHANGES, guild.reload)

  return (
    <div className="screen">
      <h1>Guild</h1>
      {guild.error && <ErrorNotice error={guild.error} />}
      {guild.data === undefined && !guild.error && <Loading what="your guild" />}
      {guild.data === null && <NoGuild onJoined={guild.reload} />}
      {guild.data && <MyGuild guild={guild.data} reload={guild.reload} />}
      <Leaderboard mine={guild.data?.id} />
    </div>
  )
}

function NoGuild({ onJoined }: { onJoined: () => Promise<void> }) {
  const game = useGame()
  const invites = useLoad(() => myInvites(game.avatarId), [game.avatarId])
  useReloadOn(['InviteSent', 'InviteWithdrawn'], invites.reload)
  const [name, setName] = useState('')
  const [nickname, setNickname] = useNickname()
  const { busy, error, fields, submit } = useSubmit()

  const create = (e: FormEvent) => submit(e, async () => {
    await createGuild(name, game.avatarId, nickname)
    game.announce('info', `You founded ${name.trim()}.`)
    await onJoined()
  }, {
    fields: (err) => ({ ...err.fields, nickname: err.fields.creatorNickname ?? '' }),
    message: (err) => (err instanceof ApiError && err.slug === 'guild-name-taken' ? 'A guild with this name exists already: pick another name.' : messageOf(err)),
  })

  return (
    <>
      <Section title="Invites">
        {invites.error && <ErrorNotice error={invites.error} />}
        {invites.data?.length === 0 && <Empty>No invites yet. A guild leader or officer can invite you by your hero's name.</Empty>}
        <ul className="stack" aria-label="Your invites">
          {invites.data?.map((i) => <InviteItem key={i.id} invite={i} onDone={async () => { await invites.reload(); await onJoined() }} />)}
        </ul>
      </Section>
      <Section title="Found a guild">
        <form onSubmit={create} noValidate>
          <Field label="Guild name" error={fields.name} hint="3–40 characters, unique.">
            {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.name} value={name} onChange={(e) => setName(e.target.value)} maxLength={60} />}
          </Field>
          <Field label="Your nickname in the guild" error={fields.nickname || undefined}>
            {(id, d) => <input id={id} aria-describedby={d} value={nickname} onChange={(e) => setNickname(e.target.value)} maxLength={52} />}
          </Field>
          {error && <Notice kind="error">{error}</Notice>}
          <button className="primary" type="submit" disabled={busy} aria-busy={busy || undefined}>Found guild</button>
        </form>
      </Section>
      <FindGuilds />
    </>
  )
}

/** A nickname field that starts as the hero's name (up to 32 characters) once the hero is loaded. */
function useNickname(): [string, (s: string) => void] {
  const { avatar } = useGame()
  const [nickname, setNickname] = useState('')
  const [touched, setTouched] = useState(false)
  useEffect(() => {
    if (!touched && avatar) setNickname(avatar.name.slice(0, 32))
  }, [avatar, touched])
  return [nickname, (s) => {
    setTouched(true)
    setNickname(s)
  }]
}

function InviteItem({ invite: i, onDone }: { invite: Invite; onDone: () => Promise<void> }) {
  const game = useGame()
  const guild = useLoad(() => getGuild(i.guildId), [i.guildId])
  const [nickname, setNickname] = useNickname()
  const [error, setError] = useState<string>()
  const inviter = guild.data?.members.find((m) => m.avatarId === i.invitedBy)
  const label = guild.data?.name ?? 'a guild'
  return (
    <li className="invite">
      <p><strong className="wrap">{label}</strong> invites you{inviter ? <> (from <span className="wrap">{inviter.nickname}</span>)</> : null}.</p>
      <Field label="Your nickname there">
        {(id) => <input id={id} value={nickname} onChange={(e) => setNickname(e.target.value)} maxLength={52} />}
      </Field>
      {error && <Notice kind="error">{error}</Notice>}
      <div className="row">
        <Action className="primary small" onAction={async () => {
          try {
            await acceptInvite(i, game.avatarId, nickname)
            game.announce('info', `You joined ${label}.`)
            await onDone()
          } catch (e) {
            setError(messageOf(e))
          }
        }}>Accept<span className="visually-hidden"> invite to {label}</span></Action>
        <Action className="small" onAction={async () => {
          try {
            await dropInvite(i)
            await onDone()
          } catch (e) {
            setError(messageOf(e))
          }
        }}>Decline<span className="visually-hidden"> invite to {label}</span></Action>
      </div>
    </li>
  )
}

function FindGuilds() {
  const [q, setQ] = useState('')
  const [results, setResults] = useState<Guild[]>()
  const [error, setError] = useState<unknown>()
  return (
    <Section title="Find guilds">
      <form className="row search" role="search" onSubmit={async (e) => {
        e.preventDefault()
        try {
          setResults(await findGuilds(q))
          setError(undefined)
        } catch (err) {
          setError(err)
        }
      }}>
        <label className="visually-hidden" htmlFor="guild-search">Search guilds by name</label>
        <input id="guild-search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Guild name" />
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={error} />
      {results?.length === 0 && <Empty>No guild by that name.</Empty>}
      <ul className="rows" aria-label="Guilds found">
        {results?.map((g) => (
          <li key={g.id} className="row-item">
            <span className="ellipsis grow" title={g.name}>{g.name}</span>
            <span className="muted">{g.members.length} member{g.members.length === 1 ? '' : 's'} · rank #{g.globalRank}</span>
          </li>
        ))}
      </ul>
      {results && results.length > 0 && <p className="muted">To join, ask a guild's leader or an officer to invite you.</p>}
    </Section>
  )
}

function MyGuild({ guild: g, reload }: { guild: Guild; reload: () => Promise<void> }) {
  const game = useGame()
  const me = g.members.find((m) => m.avatarId === game.avatarId)
  const isLeader = me?.role === 'LEADER'
  const canInvite = me?.role === 'LEADER' || me?.role === 'OFFICER'

  const act = async (f: () => Promise<unknown>, done: string) => {
    try {
      await f()
      game.announce('info', done)
    } catch (e) {
      game.announce('error', messageOf(e))
    }
    await reload()
  }

  return (
    <>
      <section className="card guild-head" aria-label="Your guild">
        <h2 className="wrap">{g.name}</h2>
        <p className="row">
          <span className="pill">Rank #{g.globalRank}</span>
          <span className="pill">{g.points} points</span>
          <span className="pill">{g.members.length} member{g.members.length === 1 ? '' : 's'}</span>
        </p>
      </section>
      <Section title="Members">
        <ul className="rows" aria-label="Members">
          {g.members.map((m) => (
            <li key={m.avatarId} className={`row-item member${m.avatarId === game.avatarId ? ' mine' : ''}`}>
              <span className="ellipsis grow" title={m.nickname}>{m.nickname}{m.avatarId === game.avatarId && ' (you)'}</span>
              <span className={`role role-${m.role.toLowerCase()}`}>{m.role.toLowerCase()}</span>
              {isLeader && m.avatarId !== game.avatarId && (
                <span className="row">
                  {m.role === 'MEMBER'
                    ? <Action className="small" onAction={() => act(() => setRole(g.id, m, 'OFFICER', game.avatarId), `${m.nickname} is now an officer.`)}>Promote<span className="visually-hidden"> {m.nickname}</span></Action>
                    : <Action className="small" onAction={() => act(() => setRole(g.id, m, 'MEMBER', game.avatarId), `${m.nickname} is now a member.`)}>Demote<span className="visually-hidden"> {m.nickname}</span></Action>}
                  <Action className="small" onAction={() => confirmThen(`Make ${m.nickname} the leader? You become an officer.`, () => act(() => transferLeadership(g.id, m.avatarId, game.avatarId), `${m.nickname} leads the guild now.`))}>Make leader<span className="visually-hidden"> {m.nickname}</span></Action>
                  <Action className="small danger" onAction={() => confirmThen(`Remove ${m.nickname} from the guild?`, () => act(() => removeMember(g.id, m, game.avatarId), `${m.nickname} was removed.`))}>Remove<span className="visually-hidden"> {m.nickname}</span></Action>
                </span>
              )}
            </li>
          ))}
        </ul>
        {me && (
          <Action className="danger small" onAction={() => confirmThen(isLeader && g.members.length > 1 ? 'Leave the guild? Leadership passes to the longest-serving officer or member.' : g.members.length === 1 ? 'Leave the guild? You are its last member: it will be disbanded.' : 'Leave the guild?',
            () => act(() => leaveGuild(g.id, me.avatarId), `You left ${g.name}.`))}>Leave guild</Action>
        )}
      </Section>
      {me && <GuildChat guild={g} />}
      {canInvite && <InvitePlayers guild={g} />}
    </>
  )
}

async function confirmThen(question: string, f: () => Promise<void>) {
  if (window.confirm(question)) await f()
}

function InvitePlayers({ guild: g }: { guild: Guild }) {
  const game = useGame()
  const [q, setQ] = useState('')
  const [found, setFound] = useState<Avatar[]>()
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string }>()
  const pending = useLoad(() => guildInvites(g.id), [g.id])
  // Declined or withdrawn (by anyone), or accepted: the list follows.
  useReloadOn(['InviteWithdrawn', 'MemberJoined'], pending.reload, (e) => e.payload.guildId === g.id)
  const memberIds = new Set(g.members.map((m) => m.avatarId))

  return (
    <Section title="Invite players">
      <form className="row search" role="search" onSubmit={async (e) => {
        e.preventDefault()
        setOutcome(undefined)
        try {
          setFound(await searchAvatars(q))
        } catch (err) {
          setOutcome({ kind: 'error', text: messageOf(err) })
        }
      }}>
        <label className="visually-hidden" htmlFor="avatar-search">Search heroes by name</label>
        <input id="avatar-search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Hero name" />
        <button type="submit">Find heroes</button>
      </form>
      {outcome && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
      {found?.length === 0 && <Empty>No hero by that name.</Empty>}
      <ul className="rows" aria-label="Heroes found">
        {found?.map((a) => (
          <li key={a.id} className="row-item">
            <span className="ellipsis grow" title={a.name}>{a.name}</span>
            <span className="muted">Lv {a.level.levelNumber}</span>
            {memberIds.has(a.id) ? <span className="muted">member</span> : (
              <Action className="small primary" onAction={async () => {
                try {
                  await invite(g.id, game.avatarId, a.id)
                  setOutcome({ kind: 'success', text: `Invited ${a.name}. They will see the invite on their Guild page.` })
                  await pending.reload()
                } catch (err) {
                  setOutcome({ kind: 'error', text: err instanceof ApiError && err.slug === 'invite-pending' ? `${a.name} already has a pending invite.` : messageOf(err) })
                }
              }}>Invite<span className="visually-hidden"> {a.name}</span></Action>
            )}
          </li>
        ))}
      </ul>
      {pending.data && pending.data.length > 0 && (
        <>
          <h3>Pending invites</h3>
          <ul className="rows" aria-label="Pending invites">
            {pending.data.map((i) => (
              <li key={i.id} className="row-item">
                <span className="ellipsis grow"><AvatarName id={i.targetAvatarId} /></span>
                <span className="muted">until {new Date(i.expiresAt).toLocaleDateString()}</span>
                <Action className="small" onAction={async () => { await dropInvite(i); await pending.reload() }}>Withdraw</Action>
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  )
}

/** An avatar's name (anyone signed in may read any avatar). */
function AvatarName({ id }: { id: string }) {
  const a = useLoad(() => getAvatar(id), [id])
  return <>{a.data?.name ?? '…'}</>
}

function Leaderboard({ mine }: { mine: string | undefined }) {
  const board = useLoad(() => leaderboard(20), [mine])
  // A won battle brings the guild points.
  useReloadOn(['BattleWon'], board.reload)
  return (
    <Section title="Leaderboard">
      {board.error && <ErrorNotice error={board.error} />}
      {board.data?.length === 0 && <Empty>No guilds yet. Found the first!</Empty>}
      <ol className="rows leaderboard" aria-label="Leaderboard">
        {board.data?.map((g) => (
          <li key={g.id} className={`row-item${g.id === mine ? ' mine' : ''}`} aria-current={g.id === mine ? 'true' : undefined}>
            <span className="rank num">#{g.globalRank}</span>
            <span className="ellipsis grow" title={g.name}>{g.name}{g.id === mine && <strong> (your guild)</strong>}</span>
            <span className="num">{g.points} pts</span>
          </li>
        ))}
      </ol>
    </Section>
  )
}

