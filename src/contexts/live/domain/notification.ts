/**
 * Notifications: what the inbox tells a player, made from the events of other contexts. Pure:
 * each event becomes zero or more drafts, one per avatar it concerns, with a title and a body a
 * person can read and `data` a client can act on.
 */

export const NOTIFICATION_TYPES = [
  'INVITE', 'LEVEL_UP', 'DIED', 'BATTLE_WON', 'BATTLE_LOST', 'QUEST_COMPLETED', 'QUEST_EXPIRED', 'HABIT_MISSED',
  'STREAK_FROZEN', 'REMINDER', 'WEBHOOK_DISABLED', 'LEAGUE_RESULT', 'MENTION',
] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

export interface NotificationDraft {
  avatarId: string
  type: NotificationType
  title: string
  body: string
  data: Record<string, unknown>
}

export interface Notification extends NotificationDraft {
  id: string
  /** Order of creation (paging). */
  seq: number
  createdAt: Date
  readAt: Date | null
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

export const leveledUp = (e: { avatarId: string; level: number; levelsGained: number; spellsLearned: string[] }): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'LEVEL_UP',
  title: `Level ${e.level}!`,
  body: e.spellsLearned.length > 0
    ? `You gained ${plural(e.levelsGained, 'level')} and learned ${e.spellsLearned.join(', ')}.`
    : `You gained ${plural(e.levelsGained, 'level')}.`,
  data: { level: e.level, levelsGained: e.levelsGained, spellsLearned: e.spellsLearned },
})

export const died = (e: { avatarId: string; moneyLost: number }): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'DIED',
  title: 'You fell',
  body: `Your health ran out: you lost the experience of this level${e.moneyLost > 0 ? ` and ${e.moneyLost} gold` : ''}, and wake with full health and mana.`,
  data: { moneyLost: e.moneyLost },
})

/** How the avatar's league week ended (LeagueResult): its tier, rank, result and reward. */
export const leagueResult = (e: {
  avatarId: string; season: string; tier: string; nextTier: string; rank: number; score: number; result: string; reward: number
}): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'LEAGUE_RESULT',
  title: e.result === 'PROMOTED' ? `Promoted to ${e.nextTier}` : e.result === 'DEMOTED' ? `Down to ${e.nextTier}` : `You stay in ${e.tier}`,
  body: `You finished ${e.season} at rank ${e.rank} of your ${e.tier} division with ${e.score} experience` +
    `${e.reward > 0 ? ` and earned ${e.reward} gold` : ''}.`,
  data: { season: e.season, tier: e.tier, nextTier: e.nextTier, rank: e.rank, score: e.score, result: e.result, reward: e.reward },
})

/**
 * How the avatar paid for a habit's missed window (MissedWindowSettled): the damage it took
 * (HABIT_MISSED; none once the day's cap is reached), or a streak freeze (STREAK_FROZEN).
 */
export const missedWindowSettled = (e: {
  avatarId: string; habitId: string; windowStart: string; windowEnd: string; outcome: 'DAMAGED' | 'FROZEN'; damage: number; penalty: number
  dailyCap: number; freezesHeld: number
}): NotificationDraft => {
  const window = { habitId: e.habitId, windowStart: e.windowStart, windowEnd: e.windowEnd }
  if (e.outcome === 'FROZEN') {
    return {
      avatarId: e.avatarId,
      type: 'STREAK_FROZEN',
      title: 'Streak frozen',
      body: `A window of one of your habits ended without a completion: a streak freeze took the blow and the streak is kept (${e.freezesHeld === 0 ? 'no freezes' : plural(e.freezesHeld, 'freeze')} left).`,
      data: { ...window, freezesHeld: e.freezesHeld },
    }
  }
  return {
    avatarId: e.avatarId,
    type: 'HABIT_MISSED',
    title: 'A habit was missed',
    body: `A window of one of your habits ended without a completion: ${e.damage} damage${e.damage < e.penalty ? `: the day's cap of ${e.dailyCap} is reached` : ''}.`,
    data: { ...window, damage: e.damage, penalty: e.penalty },
  }
}

/** A habit's reminder time came and its current window is not done yet. */
export const reminded = (e: { avatarId: string; habitId: string; habitTitle: string; windowStart: string; windowEnd: string; reminderTime: string; timeZone: string }): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'REMINDER',
  title: 'Reminder',
  body: `Still to do: ${e.habitTitle}.`,
  data: { habitId: e.habitId, habitTitle: e.habitTitle, windowStart: e.windowStart, windowEnd: e.windowEnd, reminderTime: e.reminderTime, timeZone: e.timeZone },
})

export const questCompleted = (e: { avatarId: string; questId: string; reward: { experience: number; money: number } }): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'QUEST_COMPLETED',
  title: 'Quest completed',
  body: `You completed a quest: +${e.reward.experience} experience, +${e.reward.money} gold.`,
  data: { questId: e.questId, reward: e.reward },
})

export const questExpired = (e: { avatarId: string; questId: string; done: number; required: number }): NotificationDraft => ({
  avatarId: e.avatarId,
  type: 'QUEST_EXPIRED',
  title: 'Quest expired',
  body: `A quest ran out of time: ${e.done} of ${e.required} completions done, no reward.`,
  data: { questId: e.questId, done: e.done, required: e.required },
})

export const invited = (e: { inviteId: string; guildId: string; guildName: string; targetAvatarId: string; invitedBy: string; expiresAt: string }): NotificationDraft => ({
  avatarId: e.targetAvatarId,
  type: 'INVITE',
  title: 'Guild invite',
  body: `${e.guildName} invites you to join.`,
  data: { inviteId: e.inviteId, guildId: e.guildId, guildName: e.guildName, invitedBy: e.invitedBy, expiresAt: e.expiresAt },
})

/** One notification for each participant of a battle won. */
export const battleWon = (e: { battleId: string; guildId: string; bossType: string; participants: string[]; reward: { experience: number; money: number } }): NotificationDraft[] =>
  e.participants.map((avatarId) => ({
    avatarId,
    type: 'BATTLE_WON',
    title: 'Victory!',
    body: `Your guild defeated the ${bossName(e.bossType)}: +${e.reward.experience} experience, +${e.reward.money} gold.`,
    data: { battleId: e.battleId, guildId: e.guildId, bossType: e.bossType, reward: e.reward },
  }))

/** One notification for each participant of a battle lost. */
export const battleLost = (e: { battleId: string; guildId: string; bossType: string; participants: string[]; penalty: number }): NotificationDraft[] =>
  e.participants.map((avatarId) => ({
    avatarId,
    type: 'BATTLE_LOST',
    title: 'Defeat',
    body: `The ${bossName(e.bossType)} won the battle: ${e.penalty} damage to each fighter.`,
    data: { battleId: e.battleId, guildId: e.guildId, bossType: e.bossType, penalty: e.penalty },
  }))

/** `DARK_DRAGON` → `dark dragon`. */
const bossName = (bossType: string) => bossType.toLowerCase().replaceAll('_', ' ')

/** An account's webhook endpoint failed every attempt for a day and was disabled: told to each of the account's avatars. */
export const webhookDisabled = (avatarId: string, e: { endpointId: string; url: string; failingSince: Date }): NotificationDraft => ({
  avatarId,
  type: 'WEBHOOK_DISABLED',
  title: 'Webhook disabled',
  body: `Every delivery to ${e.url} has failed since ${e.failingSince.toISOString()}: the endpoint is disabled. Enable it again once it answers.`,
  data: { endpointId: e.endpointId, url: e.url, failingSince: e.failingSince.toISOString() },
})

/** The longest excerpt of a chat message a MENTION notification carries. */
const MENTION_EXCERPT_MAX = 140

/** Members a guild chat message mentions (GuildMessagePosted): one MENTION each (the guild context left out the author). */
export const mentioned = (e: { messageId: string; guildId: string; author: { avatarId: string; name: string }; text: string; mentions: string[] }): NotificationDraft[] =>
  e.mentions.map((avatarId) => ({
    avatarId,
    type: 'MENTION',
    title: `${e.author.name} mentioned you`,
    body: [...e.text].length > MENTION_EXCERPT_MAX ? `${[...e.text].slice(0, MENTION_EXCERPT_MAX - 1).join('')}…` : e.text,
    data: { guildId: e.guildId, messageId: e.messageId, authorAvatarId: e.author.avatarId },
  }))
