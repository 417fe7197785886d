/** The public API, one function per call the web app makes, each a typed call of the client package. */
import { ApiError, anonymousApi, api, completed, dataOf } from './client'
import type { SessionAnswer } from './session'
import type {
  Attack, Avatar, Battle, Boss, BossType, DayOfWeek, Guild, Habit, HabitWindow, Invite, Item, Member, Page, Participation, Quest, QuestHabit, QuestHabitEntry,
  Recurrence, Role, Settings, SettingsChange, Stats, StreakFreezes,
} from './types'

/** The path parameter `id`, as most calls name their resource. */
const byId = (id: string) => ({ params: { path: { id } } })

// ---- account ----

export const register = (b: { name: string; email: string; password: string }): Promise<SessionAnswer> =>
  dataOf(anonymousApi.POST('/auth/register', { body: b }))
export const login = (b: { email: string; password: string }): Promise<SessionAnswer> => dataOf(anonymousApi.POST('/auth/login', { body: b }))
export const logout = (refreshToken: string) => completed(api.POST('/auth/logout', { body: { refreshToken } }))

// ---- avatar ----

export const getAvatar = (id: string): Promise<Avatar> => dataOf(api.GET('/api/v1/avatars/{id}', byId(id)))
export const getStats = (id: string): Promise<Stats> => dataOf(api.GET('/api/v1/avatars/{id}/stats', byId(id)))
export const raiseStat = (id: string, stat: 'strength' | 'defense' | 'intelligence') => completed(api.POST(`/api/v1/avatars/{id}/stats/${stat}`, byId(id)))
export const equip = (id: string, item: Item) =>
  completed(api.POST('/api/v1/avatars/{id}/inventory/items/equip', { ...byId(id), body: { type: item.type, name: item.name } }))
export const unequip = (id: string, item: Item) =>
  completed(api.POST('/api/v1/avatars/{id}/inventory/items/unequip', { ...byId(id), body: { type: item.type, name: item.name } }))
export const consumeItem = (id: string, name: string): Promise<{ health: Avatar['health']; mana: Avatar['mana']; streakFreezes: StreakFreezes }> =>
  dataOf(api.POST('/api/v1/avatars/{id}/inventory/items/use', { ...byId(id), body: { name } }))
export const searchAvatars = (name: string): Promise<Avatar[]> =>
  dataOf(api.GET('/api/v1/avatars/search', { params: { query: { name, limit: 20 } } })).then((r) => r._embedded.avatars)

/** The avatar's day settings (DESIGN §9.3). */
export const getSettings = (id: string): Promise<Settings> => dataOf(api.GET('/api/v1/avatars/{id}/settings', byId(id)))
/** Changes the fields named; the answer is the settings after. They govern the windows that start after today. */
export const changeSettings = (id: string, change: SettingsChange): Promise<Settings> =>
  dataOf(api.PATCH('/api/v1/avatars/{id}/settings', { ...byId(id), body: change }))

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

/** The recurrence's fields: those of its type, the others null. */
const scheduleOf = (r: Recurrence) => ({
  dayOfWeek: r.type === 'WEEKLY' ? r.dayOfWeek : null,
  dayOfMonth: r.type === 'MONTHLY' ? r.dayOfMonth : null,
  timesPerWeek: r.type === 'TIMES_PER_WEEK' ? r.timesPerWeek : null,
  everyNDays: r.type === 'EVERY_N_DAYS' ? r.everyNDays : null,
})
const sameSchedule = (a: Recurrence, b: Recurrence) => a.type === b.type && JSON.stringify(scheduleOf(a)) === JSON.stringify(scheduleOf(b))
const sameDays = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join()

/** Every habit of the avatar, archived ones too (`archived`), oldest first. */
export const listHabits = async (avatarId: string): Promise<Habit[]> => {
  const all: Habit[] = []
  let cursor: string | null = null
  do {
    const page: Page<Habit> = await dataOf(api.GET('/api/v1/habits', { params: { query: { avatarId, limit: 200, ...(cursor ? { cursor } : {}) } } }))
    all.push(...page.items)
    cursor = page.next
  } while (cursor)
  return all
}
export const getHabit = (id: string): Promise<Habit> => dataOf(api.GET('/api/v1/habits/{id}', byId(id)))
/** The schedule's fields of its type; the others are left out. */
const scheduleFields = (r: Recurrence) => {
  const s = scheduleOf(r)
  return {
    ...(s.dayOfWeek !== null ? { dayOfWeek: s.dayOfWeek } : {}),
    ...(s.dayOfMonth !== null ? { dayOfMonth: s.dayOfMonth } : {}),
    ...(s.timesPerWeek !== null ? { timesPerWeek: s.timesPerWeek } : {}),
    ...(s.everyNDays !== null ? { everyNDays: s.everyNDays } : {}),
  }
}
/**
 * A body whose recurrence is the variant of its type: its own field, no other's (scheduleFields).
 * The form's recurrence is one object whatever its type, and may hold that field empty (then not
 * sent, and the API refuses the body naming the field), so the compiler is told, not shown, which
 * variant it is.
 */
const asVariant = (body: object) => body as never

/** Made without a zone, the habit follows its avatar's settings (the Settings screen). */
export const createHabit = (avatarId: string, h: HabitInput): Promise<{ id: string }> =>
  dataOf(api.POST('/api/v1/habits', {
    body: asVariant({
      avatarId, title: h.title, description: h.description, tags: h.tags,
      recurrenceType: h.recurrence.type,
      ...scheduleFields(h.recurrence),
      ...(h.recurrence.type === 'DAILY' && h.restDays.length > 0 ? { restDays: h.restDays } : {}),
      ...(h.reminderTime ? { reminderTime: h.reminderTime } : {}),
    }),
  }))
/** The contract edits a habit one part at a time; only the parts that changed are sent. */
export async function updateHabit(before: Habit, h: HabitInput): Promise<void> {
  const habit = byId(before.id)
  if (h.title !== before.title) await api.PATCH('/api/v1/habits/{id}/title', { ...habit, body: { title: h.title } })
  if (h.description !== before.description) await api.PATCH('/api/v1/habits/{id}/description', { ...habit, body: { description: h.description } })
  if (h.tags.join('\n') !== before.tags.join('\n')) await api.PATCH('/api/v1/habits/{id}/tags', { ...habit, body: { tags: h.tags } })
  if (h.reminderTime !== before.reminderTime) await api.PATCH('/api/v1/habits/{id}/reminder-time', { ...habit, body: { reminderTime: h.reminderTime } })
  const rescheduled = !sameSchedule(h.recurrence, before.recurrence)
  if (rescheduled) {
    await api.PATCH('/api/v1/habits/{id}/recurrence', { ...habit, body: asVariant({ type: h.recurrence.type, ...scheduleFields(h.recurrence) }) })
  }
  // A new schedule keeps the rest days only when it is DAILY.
  const restDays = h.recurrence.type === 'DAILY' ? h.restDays : []
  const restDaysAfter = rescheduled && h.recurrence.type !== 'DAILY' ? [] : before.restDays
  if (!sameDays(restDays, restDaysAfter)) await api.PATCH('/api/v1/habits/{id}/rest-days', { ...habit, body: { restDays } })
}
/** Archives the habit (kept with its history, out of play) or brings it back; answers the habit. */
export const setHabitArchived = (id: string, archived: boolean): Promise<Habit> =>
  dataOf(api.PATCH('/api/v1/habits/{id}/archived', { ...byId(id), body: { archived } }))
export const deleteHabit = (id: string) => completed(api.DELETE('/api/v1/habits/{id}', byId(id)))
export const attendHabit = (id: string, date: string) => completed(api.POST('/api/v1/habits/{id}/attend', { ...byId(id), body: { date } }))
/** Check-ins queued offline, applied in order; one result per item (204, or the refusal's status and problem). */
export const attendInBulk = (avatarId: string, attends: { key: string; habitId: string; date: string }[]) =>
  dataOf(api.POST('/api/v1/avatars/{id}/attends', { ...byId(avatarId), body: { attends } })).then((r) => r.results)
/** What became of each window that overlaps the local days [from, to) (at most 400 windows). */
export const habitWindows = (id: string, from: string, to: string): Promise<HabitWindow[]> =>
  dataOf(api.GET('/api/v1/habits/{id}/windows', { params: { path: { id }, query: { from, to } } })).then((r) => r.items)

// ---- guilds ----

export const myGuild = (avatarId: string): Promise<Guild | null> =>
  dataOf(api.GET('/api/v1/guilds', { params: { query: { memberId: avatarId, limit: 1 } } })).then((p) => p.items[0] ?? null)
export const getGuild = (id: string): Promise<Guild> => dataOf(api.GET('/api/v1/guilds/{id}', byId(id)))
export const findGuilds = (name: string): Promise<Guild[]> => dataOf(api.GET('/api/v1/guilds', { params: { query: { name, limit: 20 } } })).then((p) => p.items)
export const leaderboard = (limit = 20): Promise<Guild[]> =>
  dataOf(api.GET('/api/v1/guilds/leaderboard', { params: { query: { limit } } })).then((r) => r._embedded.guilds)

/** The experience board: the `limit` ranks around the avatar, and how many avatars it holds. */
export const experienceBoardAround = (avatarId: string, limit = 11) =>
  dataOf(api.GET('/api/v1/leaderboards/experience', { params: { query: { around: avatarId, limit } } }))
export const createGuild = (name: string, creatorAvatarId: string, creatorNickname: string): Promise<{ id: string }> =>
  dataOf(api.POST('/api/v1/guilds', { body: { name, creatorAvatarId, creatorNickname } }))
export const invite = (guildId: string, requestorId: string, targetAvatarId: string) =>
  completed(api.POST('/api/v1/guilds/{id}/invites', { ...byId(guildId), body: { requestorId, targetAvatarId } }))
export const guildInvites = (guildId: string): Promise<Invite[]> => dataOf(api.GET('/api/v1/guilds/{id}/invites', byId(guildId))).then((r) => r.items)
export const myInvites = (avatarId: string): Promise<Invite[]> => dataOf(api.GET('/api/v1/avatars/{id}/invites', byId(avatarId))).then((r) => r.items)
export const acceptInvite = (i: Invite, avatarId: string, nickname: string) =>
  completed(api.POST('/api/v1/guilds/{id}/invites/{inviteId}/accept', { params: { path: { id: i.guildId, inviteId: i.id } }, body: { avatarId, nickname } }))
export const dropInvite = (i: Invite) => completed(api.DELETE('/api/v1/guilds/{id}/invites/{inviteId}', { params: { path: { id: i.guildId, inviteId: i.id } } }))
export const setRole = (guildId: string, m: Member, roleName: Exclude<Role, 'LEADER'>, requestorId: string) =>
  completed(api.PATCH('/api/v1/guilds/{id}/members/{memberId}/role', { params: { path: { id: guildId, memberId: m.avatarId } }, body: { roleName, requestorId } }))
export const removeMember = (guildId: string, m: Member, requestorId: string) =>
  completed(api.DELETE('/api/v1/guilds/{id}/members/{memberId}', { params: { path: { id: guildId, memberId: m.avatarId } }, body: { requestorId } }))
export const transferLeadership = (guildId: string, avatarId: string, requestorId: string) =>
  completed(api.POST('/api/v1/guilds/{id}/leader', { ...byId(guildId), body: { avatarId, requestorId } }))
export const leaveGuild = (guildId: string, avatarId: string) =>
  completed(api.POST('/api/v1/guilds/{id}/members/{memberId}/leave', { params: { path: { id: guildId, memberId: avatarId } } }))

// ---- battles ----

export const bosses = (): Promise<Boss[]> => dataOf(api.GET('/api/v1/battles/bosses')).then((r) => r.bosses)
export const startBattle = (guildId: string, bossType: BossType, requesterId: string): Promise<{ id: string }> =>
  dataOf(api.POST('/api/v1/battles', { body: { guildId, bossType, requesterId } }))
export const battleHistory = (guildId: string): Promise<Battle[]> =>
  dataOf(api.GET('/api/v1/battles/guild/{guildId}/history', { params: { path: { guildId } } })).then((r) => r.items)
export const cancelBattle = (b: Battle, requesterId: string) =>
  completed(api.DELETE('/api/v1/battles/{id}', { ...byId(b.id), body: { guildId: b.guildId, requesterId } }))
/** The 204 names the attack in Location (`…/attacks/{turn}`); reading it tells what was dealt and struck back. */
export async function attack(battleId: string, attackerAvatarId: string, damage: number): Promise<Attack> {
  const { response } = await api.POST('/api/v1/battles/{id}/damage', { ...byId(battleId), body: { damage, attackerAvatarId } })
  const turn = response.headers.get('location')?.match(/\/attacks\/(\d+)$/)?.[1]
  if (!turn) throw new Error('The attack answer named no attack.')
  return dataOf(api.GET('/api/v1/battles/{id}/attacks/{turn}', { params: { path: { id: battleId, turn: Number(turn) } } }))
}

// ---- quests ----

export interface QuestInput {
  name: string
  description: string
  duration: string
  reward: { experience: number; money: number }
  guildId?: string
  habits: QuestHabit[]
}

export const listQuests = (avatarId: string): Promise<Quest[]> =>
  dataOf(api.GET('/api/v1/quests', { params: { query: { avatarId, limit: 50 } } })).then((p) => p.items)
export const createQuest = (q: QuestInput, ownerAvatarId: string): Promise<{ id: string }> =>
  dataOf(api.POST('/api/v1/quests', { body: asVariant({ ...q, ownerAvatarId }) }))
export const deleteQuest = (id: string) => completed(api.DELETE('/api/v1/quests/{id}', byId(id)))
export const questHabits = (id: string): Promise<QuestHabitEntry[]> => dataOf(api.GET('/api/v1/quests/{id}/habits', byId(id))).then((r) => r.habits)
export const joinQuest = (id: string, avatarId: string): Promise<Participation> =>
  dataOf(api.POST('/api/v1/quests/{id}/participants', { ...byId(id), body: { avatarId } }))
export const leaveQuest = (id: string, avatarId: string) =>
  completed(api.DELETE('/api/v1/quests/{id}/participants/{avatarId}', { params: { path: { id, avatarId } } }))
/** The avatar's progress in the quest, or null when it has not joined. */
export const participation = (id: string, avatarId: string): Promise<Participation | null> =>
  dataOf(api.GET('/api/v1/quests/{id}/participants/{avatarId}', { params: { path: { id, avatarId } } })).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return null
    throw err
  })
