/**
 * Webhooks (DESIGN §9.4): which URLs an endpoint may have, what a delivery carries, when a failed
 * attempt is tried again and when an endpoint that keeps failing is disabled (how a delivery is
 * signed: webhook-signature.ts). Pure.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net'
import { BadRequest, Conflict, RuleViolation } from '../../../platform/errors.js'
import { WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_FIRST_RETRY_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_MAX_RETRY_MS } from './rules.js'

/**
 * The event types an endpoint may ask for: every public event the live context consumes (the
 * stream's types and the reminder). The live module checks at start-up that this list and its
 * consumers agree.
 */
export const WEBHOOK_EVENT_TYPES = [
  'AvatarChanged', 'AvatarLeveledUp', 'AvatarDied', 'MissedWindowSettled', 'LeagueResult',
  'HabitCreated', 'HabitDeleted', 'HabitAttended', 'HabitMissed', 'HabitReminderDue',
  'QuestCompleted', 'QuestExpired', 'ItemBought', 'ItemSold', 'NotificationCreated',
  'InviteSent', 'InviteWithdrawn', 'GuildCreated', 'MemberJoined', 'MemberLeft', 'MemberRolesChanged', 'GuildDisbanded',
  'BattleStarted', 'BattleTurnTaken', 'BattleCancelled', 'BattleWon', 'BattleLost', 'GuildMessagePosted', 'GuildMessageDeleted',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

// ---- the target ----

/** What an address is: only `public` ones may receive deliveries, unless private targets are allowed. */
type AddressKind = 'public' | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'multicast' | 'reserved'

/** Ranges by kind, first match wins. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) matches its IPv4 range (BlockList does that). */
const RANGES: [Exclude<AddressKind, 'public'>, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  // Carrier-grade NAT: inside a provider's network, as private as the above.
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  // 240/4 and the broadcast address; IPv4-compatible IPv6 (`::a.b.c.d`, deprecated, would hide an IPv4 address).
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['reserved', '::', 96, 'ipv6'],
]
const BLOCKS = RANGES.map(([kind, network, prefix, family]) => {
  const list = new BlockList()
  list.addSubnet(network, prefix, family)
  return { kind, list }
})

/** The kind of an IP address (v4 or v6, without brackets). */
export function addressKind(ip: string): AddressKind {
  const family = isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : undefined
  if (!family) throw new Error(`not an IP address: ${ip}`)
  return BLOCKS.find((b) => b.list.check(ip, family))?.kind ?? 'public'
}

/** Why an address may not receive deliveries (undefined: it may). */
export function refusedAddress(ip: string, allowPrivate: boolean): string | undefined {
  const kind = addressKind(ip)
  if (kind === 'public' || allowPrivate) return undefined
  return `${ip} is a ${kind} address`
}

/** An endpoint's URL, checked for its form: an absolute http(s) URL without credentials. */
type ParsedTarget = { ok: true; url: URL; href: string; ipLiteral: string | undefined } | { ok: false; reason: string }

export function parseTarget(raw: string): ParsedTarget {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'must be an absolute http:// or https:// URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must be an http:// or https:// URL' }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry credentials (user:password@)' }
  if (url.hostname === '') return { ok: false, reason: 'must name a host' }
  // The URL parser has normalised IPv4 spellings (0x7f.1, 2130706433) to dotted quads; IPv6 comes in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return { ok: true, url, href: url.href, ipLiteral: isIPv4(host) || isIPv6(host) ? host : undefined }
}

// ---- the delivery ----

/** What an endpoint is sent: the event as the live context received it. */
export const deliveryBody = (e: { id: string; type: string; occurredAt: string; payload: unknown }): string =>
  JSON.stringify({ id: e.id, type: e.type, occurredAt: e.occurredAt, payload: e.payload })

export const isDelivered = (statusCode: number | undefined): boolean => statusCode !== undefined && statusCode >= 200 && statusCode < 300

/** Each retry's wait over the one before: the first retry waits WEBHOOK_FIRST_RETRY_MS, the last WEBHOOK_MAX_RETRY_MS. */
export const RETRY_GROWTH = (WEBHOOK_MAX_RETRY_MS / WEBHOOK_FIRST_RETRY_MS) ** (1 / (WEBHOOK_MAX_ATTEMPTS - 2))

/**
 * The wait before the next attempt after `attemptsMade` attempts, the last of which failed:
 * exponential from WEBHOOK_FIRST_RETRY_MS to WEBHOOK_MAX_RETRY_MS; undefined once no attempt is left.
 */
export function retryDelayMs(attemptsMade: number): number | undefined {
  if (attemptsMade >= WEBHOOK_MAX_ATTEMPTS) return undefined
  return Math.min(Math.round(WEBHOOK_FIRST_RETRY_MS * RETRY_GROWTH ** (attemptsMade - 1)), WEBHOOK_MAX_RETRY_MS)
}

export interface AttemptOutcome {
  status: DeliveryStatus
  /** When the next attempt is due (null: none is). */
  nextAttemptAt: Date | null
}

/**
 * Where a delivery stands after its `attemptsMade`-th attempt, made at `now`. A delivery of a
 * disabled endpoint (`paused`) that has attempts left waits, with no time set, until it is enabled.
 */
export function afterAttempt(attemptsMade: number, delivered: boolean, now: Date, paused = false): AttemptOutcome {
  if (delivered) return { status: 'DELIVERED', nextAttemptAt: null }
  const wait = retryDelayMs(attemptsMade)
  if (wait === undefined) return { status: 'FAILED', nextAttemptAt: null }
  return { status: 'PENDING', nextAttemptAt: paused ? null : new Date(now.getTime() + wait) }
}

/** Whether an endpoint every attempt to which has failed since `failingSince` is to be disabled at `now`. */
export const isFailingTooLong = (failingSince: Date, now: Date): boolean => now.getTime() - failingSince.getTime() >= WEBHOOK_DISABLE_AFTER_MS

// ---- refusals ----

/** An endpoint URL that is not an http(s) URL deliveries may go to: 400 naming `url`. */
export class WebhookUrlRefused extends BadRequest {
  constructor(reason: string) {
    super(`The webhook URL ${reason}.`, 'webhook-url-refused', [{ path: '/url', message: reason }])
  }
}

export class TooManyWebhooks extends RuleViolation {
  constructor(max: number) {
    super('too-many-webhooks', `An account has at most ${max} webhook endpoints: delete one first.`)
  }
}

/** A redelivery asked of a disabled endpoint: enable it first. */
export class WebhookDisabled extends Conflict {
  constructor(id: string) {
    super(`Webhook endpoint '${id}' is disabled: enable it (POST /api/v1/me/webhooks/${id}/enable) and its deliveries resume.`, 'webhook-disabled')
  }
}
