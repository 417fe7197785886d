/** The League screen: this week's division with its promotion and demotion lines, the time left, past weeks. */
import { getLeague, getLeagueHistory, type DivisionMember, type League, type LeagueSeason } from '../api/league'
import { useGame } from '../game'
import { useReloadOn } from '../live'
import { useLoad } from '../ui/hooks'
import { Empty, ErrorNotice, Loading, Section } from '../ui/parts'

const count = new Intl.NumberFormat()
const tierName = (tier: string) => tier.charAt(0) + tier.slice(1).toLowerCase()
const RESULT_WORDS: Record<LeagueSeason['result'], string> = { PROMOTED: 'Promoted', STAYED: 'Stayed', DEMOTED: 'Demoted' }

/** "2 days 5 hours left", "3 hours 10 minutes left", "under a minute left". */
export function timeLeft(endsAt: string, now = Date.now()): string {
  const minutes = Math.floor((Date.parse(endsAt) - now) / 60_000)
  if (minutes < 1) return 'under a minute left'
  const [days, hours, mins] = [Math.floor(minutes / 1440), Math.floor(minutes / 60) % 24, minutes % 60]
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`
  return `${days > 0 ? `${part(days, 'day')} ${part(hours, 'hour')}` : hours > 0 ? `${part(hours, 'hour')} ${part(mins, 'minute')}` : part(mins, 'minute')} left`
}

export function LeagueScreen() {
  const { avatarId } = useGame()
  const league = useLoad(() => getLeague(avatarId), [avatarId])
  const history = useLoad(() => getLeagueHistory(avatarId), [avatarId])
  // Its own experience moves its score; a season's end brings a result.
  useReloadOn(['AvatarChanged'], league.reload, (e) => e.payload.avatarId === avatarId)
  useReloadOn(['LeagueResult'], async () => { await Promise.all([league.reload(), history.reload()]) })

  return (
    <div className="screen">
      <h1>League</h1>
      {league.error && <ErrorNotice error={league.error} />}
      {!league.data && !league.error && <Loading what="your league" />}
      {league.data && <ThisWeek league={league.data} me={avatarId} />}
      <Section title="Past weeks">
        {history.error && <ErrorNotice error={history.error} />}
        {history.data?.length === 0 && <Empty>No finished weeks yet.</Empty>}
        {history.data && history.data.length > 0 && <History seasons={history.data} />}
      </Section>
    </div>
  )
}

function ThisWeek({ league, me }: { league: League; me: string }) {
  const mine = league.division?.members.find((m) => m.avatarId === me)
  return (
    <Section title={`${tierName(league.tier)} league`} actions={<span className="pill" data-testid="league-time-left">{league.season.id}: {timeLeft(league.season.endsAt)}</span>}>
      {!league.division && league.waiting && <Empty>Last week is being closed: you enter this week&apos;s league in a few minutes, with what you have scored.</Empty>}
      {!league.division && !league.waiting && <Empty>Complete a habit to enter this week&apos;s league.</Empty>}
      {league.division && mine && (
        <p>You are <strong>#{mine.rank}</strong> of {league.division.members.length} with {count.format(mine.score)} XP this week.</p>
      )}
      {league.division && <Division members={league.division.members} me={me} promotion={league.promotionRank} demotion={league.demotionRank} />}
    </Section>
  )
}

function Division({ members, me, promotion, demotion }: { members: DivisionMember[]; me: string; promotion: number | null; demotion: number | null }) {
  return (
    <table className="league-table">
      <caption>Your division: {promotion ? `the top ${promotion} go up` : 'the top tier: nobody goes up'}{demotion ? `, rank ${demotion} and below go down` : ', nobody goes down'}.</caption>
      <thead><tr><th scope="col">Rank</th><th scope="col">Name</th><th scope="col">Score</th></tr></thead>
      <tbody>
        {members.map((m) => (
          <Row key={m.avatarId} member={m} mine={m.avatarId === me} lineAfter={m.rank === promotion ? 'Top ' + promotion + ' go up' : undefined}
            lineBefore={m.rank === demotion ? `Rank ${demotion} and below go down` : undefined} />
        ))}
      </tbody>
    </table>
  )
}

function Row({ member, mine, lineBefore, lineAfter }: { member: DivisionMember; mine: boolean; lineBefore?: string; lineAfter?: string }) {
  return (
    <>
      {lineBefore && <tr className="league-line demotion"><td colSpan={3}>{lineBefore}</td></tr>}
      <tr className={mine ? 'mine' : undefined} aria-current={mine ? 'true' : undefined}>
        <td className="num">#{member.rank}</td>
        <td>{member.name}{mine && <strong> (you)</strong>}</td>
        <td className="num">{count.format(member.score)} XP</td>
      </tr>
      {lineAfter && <tr className="league-line promotion"><td colSpan={3}>{lineAfter}</td></tr>}
    </>
  )
}

function History({ seasons }: { seasons: LeagueSeason[] }) {
  return (
    <ol className="rows" aria-label="Past weeks">
      {seasons.map((s) => (
        <li key={s.season} className="row-item">
          <span className="grow">{s.season}: {tierName(s.tier)}, #{s.rank} with {count.format(s.score)} XP</span>
          <span>{RESULT_WORDS[s.result]}{s.reward > 0 ? `, +${s.reward} gold` : ''}</span>
        </li>
      ))}
    </ol>
  )
}
