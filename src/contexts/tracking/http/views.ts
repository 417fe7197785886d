import { links } from '../../../platform/http/links.js'
import { recurrenceFields } from '../../../platform/time/index.js'
import type { HabitSnapshot } from '../app/habit-queries.js'
import { nextRecurrenceDate } from '../domain/habit.js'
import { currentSettings } from '../domain/settings.js'

export const habitPath = (id: string) => `/api/v1/habits/${id}`

export const recurrenceView = recurrenceFields

export function habitLinks(id: string, avatarId: string) {
  const self = habitPath(id)
  return links({
    self,
    habit: self,
    avatar: `/api/v1/avatars/${encodeURIComponent(avatarId)}`,
    title: `${self}/title`,
    description: `${self}/description`,
    tags: `${self}/tags`,
    recurrence: `${self}/recurrence`,
    restDays: `${self}/rest-days`,
    windows: `${self}/windows`,
    stats: `${self}/stats`,
    reminderTime: `${self}/reminder-time`,
    archived: `${self}/archived`,
    lastAttendedDate: `${self}/last-attended-date`,
    history: `${self}/history`,
    attend: `${self}/attend`,
    delete: self,
  })
}

export function habitView({ habit: h, history, streak }: HabitSnapshot) {
  return {
    id: h.id,
    avatarId: h.avatarId,
    title: h.title,
    description: h.description,
    tags: h.tags,
    recurrence: recurrenceView(h.recurrence),
    lastAttendedDate: h.lastAttendedAt,
    nextRecurrenceDate: nextRecurrenceDate(h, history),
    associatedQuestId: h.associatedQuestId,
    streak,
    bestStreak: h.bestStreak,
    timeZone: h.ownTimeZone ?? currentSettings(history).timeZone,
    followsAvatarTimeZone: h.ownTimeZone === null,
    restDays: h.restDays,
    reminderTime: h.reminderTime,
    archived: h.archived,
    _links: habitLinks(h.id, h.avatarId),
  }
}
