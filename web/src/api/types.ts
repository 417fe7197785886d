/**
 * The API's shapes, as the web app reads them: names for parts of the client package's types
 * (@questline/client, packages/client/src/schema.d.ts), which `npm run client:generate` generates
 * from the route schemas (/openapi.json). Nothing here restates a field: a route schema that
 * changes reaches the web app's type-check.
 */
import type { paths } from '@questline/client'

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch'

/** The JSON a route answers with `status`. */
type Answer<P extends keyof paths, M extends Method, Status extends number = 200> =
  paths[P][M] extends { responses: { [S in Status]: { content: { 'application/json': infer T } } } } ? T : never

/** The JSON body a route takes. */
type Body<P extends keyof paths, M extends Method> =
  paths[P][M] extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never

export type Avatar = Answer<'/api/v1/avatars/{id}', 'get'>
export type Item = Avatar['inventory']['items'][number]
export type ItemType = Item['type']
export type Stats = Answer<'/api/v1/avatars/{id}/stats', 'get'>
export type StreakFreezes = Avatar['streakFreezes']

/** An avatar's day settings (DESIGN §9.3): the zone its habits follow, the hour its days start, a vacation. */
export type Settings = Answer<'/api/v1/avatars/{id}/settings', 'get'>
export type SettingsChange = Body<'/api/v1/avatars/{id}/settings', 'patch'>

export type Habit = Answer<'/api/v1/habits/{id}', 'get'>
export type Recurrence = Habit['recurrence']
export type RecurrenceType = Recurrence['type']
export type DayOfWeek = NonNullable<Recurrence['dayOfWeek']>
/** The days in week order, Monday first, for pickers. */
export const DAYS: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']
/** A window of a habit and what became of it (`…/windows`). */
export type HabitWindow = Answer<'/api/v1/habits/{id}/windows', 'get'>['items'][number]
export type WindowStatus = HabitWindow['status']

export type Guild = Answer<'/api/v1/guilds/{id}', 'get'>
export type Member = Guild['members'][number]
export type Role = Member['role']
export type Invite = Answer<'/api/v1/guilds/{id}/invites', 'get'>['items'][number]

export type Boss = Answer<'/api/v1/battles/bosses', 'get'>['bosses'][number]
export type BossType = Boss['type']
export type Battle = Answer<'/api/v1/battles/{id}', 'get'>
export type Attack = Answer<'/api/v1/battles/{id}/attacks/{turn}', 'get'>

export type Quest = Answer<'/api/v1/quests/{id}', 'get'>
/** A habit of a quest, as its owner sends it. */
export type QuestHabit = NonNullable<Body<'/api/v1/quests', 'post'>['habits']>[number]
/** A habit of a quest, as the quest lists it (`…/habits`). */
export type QuestHabitEntry = Answer<'/api/v1/quests/{id}/habits', 'get'>['habits'][number]
export type Participation = Answer<'/api/v1/quests/{id}/participants/{avatarId}', 'get'>

export type MarketItem = Answer<'/api/v1/marketplaces/{marketplaceId}/items', 'get'>[number]

/** A list the contract does not shape: `?limit=&cursor=` → `{items, next}` (DESIGN §4). */
export interface Page<T> {
  items: T[]
  next: string | null
}

// ---- the player's data (DESIGN §9.4) ----

export type HabitStats = Answer<'/api/v1/habits/{id}/stats', 'get'>
export type Report = Answer<'/api/v1/avatars/{id}/report', 'get'>
export type ReportPeriod = Report['period']
/** What an import made: the new habits' ids. */
export type Imported = Answer<'/api/v1/avatars/{id}/import', 'post'>
/** Loop Habit Tracker's two CSV files, as text. */
export type LoopCsvPair = Extract<Body<'/api/v1/avatars/{id}/import', 'post'>, { checkmarks: string }>
export type CalendarLink = Answer<'/api/v1/me/calendar', 'post'>
export type Webhook = Answer<'/api/v1/me/webhooks', 'get'>['items'][number]
/** A new webhook endpoint, with its secret (never shown again). */
export type WebhookCreated = Answer<'/api/v1/me/webhooks', 'post', 201>
export type WebhookEvent = Webhook['events'][number]
export type WebhookDeliveries = Answer<'/api/v1/me/webhooks/{id}/deliveries', 'get'>
export type WebhookDelivery = WebhookDeliveries['items'][number]

/** `list` as it is, checked to name every member of T: one the list lacks fails the type-check, naming it. */
const everyOf = <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> })): L => list

/** The event types an endpoint can receive, for its form: a player's own progress first, then the guild's. */
export const WEBHOOK_EVENTS = everyOf<WebhookEvent>()([
  'HabitAttended', 'HabitMissed', 'HabitReminderDue', 'HabitCreated', 'HabitDeleted', 'MissedWindowSettled',
  'AvatarChanged', 'AvatarLeveledUp', 'AvatarDied', 'LeagueResult', 'QuestCompleted', 'QuestExpired', 'ItemBought', 'ItemSold', 'NotificationCreated',
  'InviteSent', 'InviteWithdrawn', 'GuildCreated', 'MemberJoined', 'MemberLeft', 'MemberRolesChanged', 'GuildDisbanded',
  'BattleStarted', 'BattleTurnTaken', 'BattleCancelled', 'BattleWon', 'BattleLost', 'GuildMessagePosted', 'GuildMessageDeleted',
])
