/** The live context's problem types: streams and webhooks (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const LIVE_PROBLEMS: ProblemCatalog = {
  'invalid-ticket': { status: 401, title: 'Invalid stream ticket', description: 'The stream ticket is unknown, used already, expired, or for another avatar. Ask for a new one with the access token.' },
  'too-many-webhooks': { status: 400, rule: true, title: 'Too many webhooks', description: 'The account has as many webhook endpoints as it may; delete one first.' },
  'webhook-url-refused': { status: 400, title: 'Webhook URL refused', description: 'A webhook URL must be http:// or https://, carry no credentials, resolve, and point at a public address (unless the server allows private ones). `errors` says which it failed.' },
  'webhook-disabled': { status: 409, title: 'Webhook disabled', description: 'The endpoint is disabled (after a day of failed deliveries, or by its owner): enable it, and its deliveries resume.' },
}
