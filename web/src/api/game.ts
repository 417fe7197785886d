/** The public API, one function per call the web app makes. */
import { del, get, patch, post, request } from './client'
import type { SessionAnswer } from './session'
import type {
  Attack, Avatar, Battle, Boss, BossType, DayOfWeek, Guild, Habit, HabitWindow, Invite, Item, Member, Page, Participation, Quest, QuestHabit, QuestHabitEntry, Recurrence, Role,
  Settings, SettingsChange, Stats, StreakFreezes,
} from './types'

const e = encodeURIComponent

// ---- account ----

export const register = (b: { name: string; email: string; password: string }) =>
  request<SessionAnswer>('POST', '/auth/register', { body: b, anonymous: true }).then((a) => a.data)
export const login = (b: { email: string; password: string }) =>
  request<SessionAnswer>('POST', '/auth/login', { body: b, anonymous: true }).then((a) => a.data)
export const logout = (refreshToken: string) => post('/auth/logout', { refreshToken })

// ---- avatar ----

const avatarPath = (id: string) => `/api/v1/avatars/${e(id)}`
export const getAvatar = (id: string) => get<Avatar>(avatarPath(id))
export const getStats = (id: string) => get<Stats>(`${avatarPath(id)}/stats`)
export const raiseStat = (id: string, stat: 'strength' | 'defense' | 'intelligence') => post(`${avatarPath(id)}/stats/${stat}`)
export const equip = (id: string, item: Item) => post(`${avatarPath(id)}/inventory/items/equip`, { type: item.type, name: item.name })
export const unequip = (id: string, item: Item) => post(`${avatarPath(id)}/inventory/items/unequip`, { type: item.type, name: item.name })
export const consumeItem = (id: string, name: string) =>
  post<{ health: Avatar['health']; mana: Avatar['mana']; streakFreezes: StreakFreezes }>(`${avatarPath(id)}/inventory/items/use`, { name })
export const searchAvatars = (name: string) =>
  get<{ _embedded: { avatars: Avatar[] } }>(`/api/v1/avatars/search?name=${e(name)}&limit=20`).then((r) => r._embedded.avatars)

/** The avatar's day settings (DESIGN §9.3). */
export const getSettings = (id: string) => get<Settings>(`${avatarPath(id)}/settings`)
/** Changes the fields named; the answer is the settings after. They govern the windows that start after today. */
export const changeSettings = (id: string, change: SettingsChange) =>
  request<Settings>('PATCH', `${avatarPath(id)}/settings`, { body: change }).then((a) => a.data)

// ---- habits ----

export interface HabitInput {
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
  /** DAILY only: weekdays that are not due. */
  restDays: DayOfWeek[]
  /** `HH:mm` in the habit's time zone, or null: no reminder. */
  reminderTime: Habit['reminderTime']
}

/** The recurrence as the API takes it: the fields of its type, the others null. */
const scheduleOf = (r: Recurrence) => ({
  dayOfWeek: r.type === 'WEEKLY' ? r.dayOfWeek : null,
  dayOfMonth: r.type === 'MONTHLY' ? r.dayOfMonth : null,
  timesPerWeek: r.type === 'TIMES_PER_WEEK' ? r.timesPerWeek : null,
  everyNDays: r.type === 'EVERY_N_DAYS' ? r.everyNDays : null,
})
const sameSchedule = (a: Recurrence, b: Recurrence) => a.type === b.type && JSON.stringify(scheduleOf(a)) === JSON.stringify(scheduleOf(b))
const sameDays = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join()

export const listHabits = async (avatarId: string): Promise<Habit[]> => {
  const all: Habit[] = []
  let cursor: string | null = null
  do {
    const page: Page<Habit> = await get(`/api/v1/habits?avatarId=${e(avatarId)}&limit=200${cursor ? `&cursor=${e(cursor)}` : ''}`)
    all.push(...page.items)
    cursor = page.next
  } while (cursor)
  return all
}
export const getHabit = (id: string) => get<Habit>(`/api/v1/habits/${e(id)}`)
/** Made without a zone, the habit follows its avatar's settings (the Settings screen). */
export const createHabit = (avatarId: string, h: HabitInput) =>
  post<{ id: string }>('/api/v1/habits', {
    avatarId, title: h.title, description: h.description, tags: h.tags,
    recurrenceType: h.recurrence.type,
    ...Object.fromEntries(Object.entries(scheduleOf(h.recurrence)).filter(([, v]) => v !== null)),
    ...(h.recurrence.type === 'DAILY' && h.restDays.length > 0 ? { restDays: h.restDays } : {}),
    ...(h.reminderTime ? { reminderTime: h.reminderTime } : {}),
  })
/** The contract edits a habit one part at a time; only the parts that changed are sent. */
export async function updateHabit(before: Habit, h: HabitInput): Promise<void> {
  const path = `/api/v1/habits/${e(before.id)}`
  if (h.title !== before.title) await patch(`${path}/title`, { title: h.title })
  if (h.description !== before.description) await patch(`${path}/description`, { description: h.description })
  if (h.tags.join('\n') !== before.tags.join('\n')) await patch(`${path}/tags`, { tags: h.tags })
  if (h.reminderTime !== before.reminderTime) await patch(`${path}/reminder-time`, { reminderTime: h.reminderTime })
  const rescheduled = !sameSchedule(h.recurrence, before.recurrence)
  if (rescheduled) await patch(`${path}/recurrence`, { type: h.recurrence.type, ...scheduleOf(h.recurrence) })
  // A new schedule keeps the rest days only when it is DAILY.
  const restDays = h.recurrence.type === 'DAILY' ? h.restDays : []
  const restDaysAfter = rescheduled && h.recurrence.type !== 'DAILY' ? [] : before.restDays
  if (!sameDays(restDays, restDaysAfter)) await patch(`${path}/rest-days`, { restDays })
}
export const deleteHabit = (id: string) => del(`/api/v1/habits/${e(id)}`)
export const attendHabit = (id: string, date: string) => post(`/api/v1/habits/${e(id)}/attend`, { date })
export const habitHistory = (id: string) => get<{ history: { date: string }[] }>(`/api/v1/habits/${e(id)}/history`).then((r) => r.history)
/** What became of each window that overlaps the local days [from, to) (at most 400 windows). */
export const habitWindows = (id: string, from: string, to: string) =>
  get<{ items: HabitWindow[] }>(`/api/v1/habits/${e(id)}/windows?from=${e(from)}&to=${e(to)}`).then((r) => r.items)

// ---- guilds ----

const guildPath = (id: string) => `/api/v1/guilds/${e(id)}`
export const myGuild = (avatarId: string) => get<Page<Guild>>(`/api/v1/guilds?memberId=${e(avatarId)}`).then((p) => p.items[0] ?? null)
export const getGuild = (id: string) => get<Guild>(guildPath(id))
export const findGuilds = (name: string) => get<Page<Guild>>(`/api/v1/guilds?name=${e(name)}&limit=20`).then((p) => p.items)
export const leaderboard = (limit = 20) => get<{ _embedded: { guilds: Guild[] } }>(`/api/v1/guilds/leaderboard?limit=${limit}`).then((r) => r._embedded.guilds)
export const createGuild = (name: string, creatorAvatarId: string, creatorNickname: string) =>
  post<{ id: string }>('/api/v1/guilds', { name, creatorAvatarId, creatorNickname })
export const invite = (guildId: string, requestorId: string, targetAvatarId: string) =>
  post(`${guildPath(guildId)}/invites`, { requestorId, targetAvatarId })
export const guildInvites = (guildId: string) => get<{ items: Invite[] }>(`${guildPath(guildId)}/invites`).then((r) => r.items)
export const myInvites = (avatarId: string) => get<{ items: Invite[] }>(`${avatarPath(avatarId)}/invites`).then((r) => r.items)
export const acceptInvite = (i: Invite, avatarId: string, nickname: string) =>
  post(`${guildPath(i.guildId)}/invites/${e(i.id)}/accept`, { avatarId, nickname })
export const dropInvite = (i: Invite) => del(`${guildPath(i.guildId)}/invites/${e(i.id)}`)
export const setRole = (guildId: string, m: Member, roleName: Exclude<Role, 'LEADER'>, requestorId: string) =>
  patch(`${guildPath(guildId)}/members/${e(m.avatarId)}/role`, { roleName, requestorId })
export const removeMember = (guildId: string, m: Member, requestorId: string) =>
  del(`${guildPath(guildId)}/members/${e(m.avatarId)}`, { requestorId })
export const transferLeadership = (guildId: string, avatarId: string, requestorId: string) =>
  post(`${guildPath(guildId)}/leader`, { avatarId, requestorId })
export const leaveGuild = (guildId: string, avatarId: string) => post(`${guildPath(guildId)}/members/${e(avatarId)}/leave`)

// ---- battles ----

export const bosses = () => get<{ bosses: Boss[] }>('/api/v1/battles/bosses').then((r) => r.bosses)
export const startBattle = (guildId: string, bossType: BossType, requesterId: string) =>
  post<{ id: string }>('/api/v1/battles', { guildId, bossType, requesterId })
export const getBattle = (id: string) => get<Battle>(`/api/v1/battles/${e(id)}`)
export const battleHistory = (guildId: string) => get<{ items: Battle[] }>(`/api/v1/battles/guild/${e(guildId)}/history`).then((r) => r.items)
export const cancelBattle = (b: Battle, requesterId: string) => del(`/api/v1/battles/${e(b.id)}`, { guildId: b.guildId, requesterId })
/** The 204 names the attack in Location; reading it tells what was dealt and struck back. */
export async function attack(battleId: string, attackerAvatarId: string, damage: number): Promise<Attack> {
  const a = await request('POST', `/api/v1/battles/${e(battleId)}/damage`, { body: { damage, attackerAvatarId } })
  const location = a.headers.get('location')
  if (!location) throw new Error('The attack answer named no attack.')
  return get<Attack>(location)
}
export const battleAttacks = (id: string) => get<{ items: Attack[] }>(`/api/v1/battles/${e(id)}/attacks`).then((r) => r.items)

// ---- quests ----

export interface QuestInput {
  name: string
  description: string
  duration: string
  reward: { experience: number; money: number }
  guildId?: string
  habits: QuestHabit[]
}

export const listQuests = (avatarId: string) => get<Page<Quest>>(`/api/v1/quests?avatarId=${e(avatarId)}&limit=50`).then((p) => p.items)
export const createQuest = (q: QuestInput, ownerAvatarId: string) => post<{ id: string }>('/api/v1/quests', { ...q, ownerAvatarId })
export const deleteQuest = (id: string) => del(`/api/v1/quests/${e(id)}`)
export const questHabits = (id: string) => get<{ habits: QuestHabitEntry[] }>(`/api/v1/quests/${e(id)}/habits`).then((r) => r.habits)
export const joinQuest = (id: string, avatarId: string) => post<Participation>(`/api/v1/quests/${e(id)}/participants`, { avatarId })
export const leaveQuest = (id: string, avatarId: string) => del(`/api/v1/quests/${e(id)}/participants/${e(avatarId)}`)
/** The avatar's progress in the quest, or null when it has not joined. */
export const participation = (id: string, avatarId: string) =>
  get<Participation>(`/api/v1/quests/${e(id)}/participants/${e(avatarId)}`).catch((err: { status?: number }) => {
    if (err.status === 404) return null
    throw err
  })
