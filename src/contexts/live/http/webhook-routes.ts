import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { links, LinksSchema } from '../../../platform/http/links.js'
import { NoContent, noContent, Nullable, problemResponses, StringEnum } from '../../../platform/http/schemas.js'
import type { DeliveryRow, EndpointRow, WebhookApp } from '../app/webhook-app.js'
import {
  LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX, WEBHOOK_FIRST_RETRY_MS, WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_MAX_RETRY_MS, WEBHOOK_SECRET_BYTES, WEBHOOK_URL_MAX_LENGTH,
} from '../domain/rules.js'
import { SPEC_SECRET } from '../domain/webhook-signature.js'
import { DELIVERY_STATUSES, RETRY_GROWTH, WEBHOOK_EVENT_TYPES, type DeliveryStatus } from '../domain/webhook.js'

const tags = ['account']
const Id = Type.String({ format: 'uuid' })
const EndpointParams = Type.Object({ id: Id })
const DeliveryParams = Type.Object({ id: Id, did: Id })
const EventTypes = Type.Array(StringEnum(WEBHOOK_EVENT_TYPES), {
  minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'The event types to deliver, each once',
})

const CreateBody = Type.Object({
  url: Type.String({
    minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH,
    description: 'An http:// or https:// URL without credentials, on a public address (checked now and at each attempt)',
  }),
  events: EventTypes,
}, { additionalProperties: false, examples: [{ url: 'https://example.com/hooks/questline', events: ['HabitAttended', 'AvatarLeveledUp', 'QuestCompleted'] }] })

const endpointFields = {
  id: Id,
  url: Type.String(),
  events: EventTypes,
  enabled: Type.Boolean({ description: 'False once every attempt failed for a day; POST …/enable turns it on again' }),
  disabledAt: Nullable(Type.String({ format: 'date-time' })),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'Since when every attempt has failed (null: the last one succeeded)' })),
  createdAt: Type.String({ format: 'date-time' }),
  _links: LinksSchema,
}
const EndpointView = Type.Object(endpointFields)
const CreatedView = Type.Object({
  ...endpointFields,
  secret: Type.String({
    pattern: SPEC_SECRET.source,
    description: `The endpoint's Standard Webhooks signing secret, shown only in this answer: \`whsec_\` and the base64 of ${WEBHOOK_SECRET_BYTES} ` +
      'random bytes, the HMAC-SHA256 key of `webhook-signature`. Give it as it is to a Standard Webhooks library: `new Webhook(secret).verify(body, headers)`',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwEy+CzxljU1w='],
  }),
})

const DeliveriesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ format: 'uuid', description: 'The `next` of the previous page' })),
})
const DeliveryView = Type.Object({
  id: Id,
  eventId: Id,
  type: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer({ minimum: 0 }),
  lastStatusCode: Nullable(Type.Integer({ description: "The receiver's status code at the last attempt (null: none answered)" })),
  lastError: Nullable(Type.String({ description: 'Why the last attempt failed' })),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'When the next attempt is due (null: none is, or the endpoint is disabled)' })),
  createdAt: Type.String({ format: 'date-time' }),
})
const DeliveriesView = Type.Object({
  items: Type.Array(DeliveryView),
  next: Nullable(Type.String({ description: 'Cursor of the next (older) page; null on the last' })),
})

const endpointPath = (id: string) => `/api/v1/me/webhooks/${id}`

const endpointView = (e: EndpointRow) => ({
  id: e.id, url: e.url, events: e.events as (typeof WEBHOOK_EVENT_TYPES)[number][], enabled: e.disabledAt === null,
  disabledAt: e.disabledAt?.toISOString() ?? null, failingSince: e.failingSince?.toISOString() ?? null, createdAt: e.createdAt.toISOString(),
  _links: links({ self: endpointPath(e.id), deliveries: `${endpointPath(e.id)}/deliveries`, enable: `${endpointPath(e.id)}/enable` }),
})

const deliveryView = (d: DeliveryRow) => ({
  id: d.id, eventId: d.eventId, type: d.type, status: d.status as DeliveryStatus, attempts: d.attempts, lastStatusCode: d.lastStatusCode,
  lastError: d.lastError, nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null, createdAt: d.createdAt.toISOString(),
})

const DESCRIPTION = `Each event of a chosen type that concerns one of the account's avatars is POSTed to the URL as
\`{id, type, occurredAt, payload}\`, signed by the Standard Webhooks specification (https://www.standardwebhooks.com):
\`webhook-id\` (the delivery's id, the same on every attempt), \`webhook-timestamp\` (the attempt's time, unix seconds) and
\`webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">\` under the key the secret's base64 part
encodes; \`Questline-Event-Id\` names the event. A receiver verifies it with a Standard Webhooks library and the secret:
\`new Webhook(secret).verify(rawBody, headers)\` (npm \`standardwebhooks\`).
A 2xx answer delivers it; anything else (or no answer within the timeout; redirects are not followed) is tried again after
${WEBHOOK_FIRST_RETRY_MS / 1000} s, then about ${RETRY_GROWTH.toFixed(1)} times as long each time up to ${WEBHOOK_MAX_RETRY_MS / 3_600_000} h, ${WEBHOOK_MAX_ATTEMPTS} attempts in all, then FAILED.
An endpoint every attempt to which failed for ${WEBHOOK_DISABLE_AFTER_MS / 3_600_000} h is disabled, with a WEBHOOK_DISABLED notification.
At most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX} endpoints per account (400 \`too-many-webhooks\`). A URL that is not http:// or https://, carries
credentials, does not resolve or resolves to a loopback, private, link-local or otherwise non-public address (unless the server allows
private targets) is refused with 400 \`webhook-url-refused\` naming \`url\`; an unknown event type is 400 \`validation\`.`

/** Endpoints are the caller's account's own: another account's is as unknown as one that does not exist. */
const OWN_ENDPOINT = "Any player may manage their own account's endpoints; 404 `not-found` for an unknown endpoint or another account's."

/** The account's webhooks (DESIGN §9.4): endpoints, their delivery logs, redelivery. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ app: WebhookApp }> = async (f, { app }) => {
  f.post('/me/webhooks', {
    schema: { tags, operationId: 'createWebhook', summary: 'Add a webhook endpoint (its secret is in this answer only)',
      description: DESCRIPTION, body: CreateBody, response: { 201: CreatedView, ...problemResponses(400, 401) } },
  }, async (req, reply) => {
    const e = await app.create(req.principal, req.body)
    return reply.code(201).send({ ...endpointView(e), secret: e.secret })
  })

  f.get('/me/webhooks', {
    schema: {
      tags, operationId: 'listWebhooks', summary: "List the account's webhook endpoints, oldest first",
      description: 'Any player may list their own account\'s endpoints, without their secrets (shown only when an endpoint is made).',
      response: { 200: Type.Object({ items: Type.Array(EndpointView) }), ...problemResponses(401) },
    },
  }, async (req) => ({ items: (await app.list(req.principal)).map(endpointView) }))

  f.delete('/me/webhooks/:id', {
    schema: { tags, operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its delivery log',
      description: `Its pending deliveries go with it. ${OWN_ENDPOINT}`, params: EndpointParams,
      response: { 204: NoContent, ...problemResponses(400, 401, 404) } },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.post('/me/webhooks/:id/enable', {
    schema: {
      tags, operationId: 'enableWebhook', summary: 'Enable a disabled webhook endpoint again',
      description: 'Its failures are forgotten and its paused deliveries are due again; an enabled endpoint stays as it is. ' +
        OWN_ENDPOINT,
      params: EndpointParams, response: { 200: EndpointView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => endpointView(await app.enable(req.principal, req.params.id)))

  f.get('/me/webhooks/:id/deliveries', {
    schema: {
      tags, operationId: 'listWebhookDeliveries', summary: "List a webhook endpoint's deliveries, newest first",
      description: 'Each delivery with its status, attempts and the last answer; kept for the retention period (`RETENTION_DAYS`). ' +
        'In pages of `limit` (`next` names the following, older page); a cursor that names no delivery of this endpoint is 400 ' +
        `\`invalid-cursor\`. ${OWN_ENDPOINT}`,
      params: EndpointParams, querystring: DeliveriesQuery, response: { 200: DeliveriesView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => {
    const page = await app.deliveries(req.principal, req.params.id, req.query)
    return { items: page.items.map(deliveryView), next: page.next }
  })

  f.post('/me/webhooks/:id/deliveries/:did/redeliver', {
    schema: {
      tags, operationId: 'retryWebhookDelivery', summary: 'Attempt a webhook delivery again now, whatever its status',
      description: 'Answers the delivery, PENDING and due now. Refused with 409 `webhook-disabled` while the endpoint is disabled ' +
        `(enable it first), 404 \`not-found\` for a delivery that is not in this endpoint's log. ${OWN_ENDPOINT}`,
      params: DeliveryParams, response: { 202: DeliveryView, ...problemResponses(400, 401, 404, 409) },
    },
  }, async (req, reply) => reply.code(202).send(deliveryView(await app.redeliver(req.principal, req.params.id, req.params.did))))
}
