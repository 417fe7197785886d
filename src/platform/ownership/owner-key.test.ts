import { expect, test } from 'vitest'
import { ownerKeyOfPath, ownerParamOfRoute } from './owner-key.js'

test('a route under an avatar or a battle is owned by the id in that place; others by none', () => {
  expect(ownerParamOfRoute('/api/v1/avatars/:id/money/earn')).toBe('id')
  expect(ownerParamOfRoute('/api/v1/avatars/:id')).toBe('id')
  expect(ownerParamOfRoute('/api/v1/battles/:id/damage')).toBe('id')
  expect(ownerParamOfRoute('/api/v1/exports/tracking/avatars/:avatarId/habits')).toBe('avatarId')
  expect(ownerParamOfRoute('/api/v1/avatars/search')).toBeUndefined()
  expect(ownerParamOfRoute('/api/v1/battles/guild/:guildId')).toBeUndefined()
  expect(ownerParamOfRoute('/api/v1/avatars')).toBeUndefined()
  expect(ownerParamOfRoute('/api/v1/habits/:id/attend')).toBeUndefined()
})

test('a call names its aggregate the same way, decoded, the query left out', () => {
  expect(ownerKeyOfPath('/api/v1/avatars/a%201/profile?keys=k')).toBe('a 1')
  expect(ownerKeyOfPath('/api/v1/battles/b1/damage')).toBe('b1')
  expect(ownerKeyOfPath('/api/v1/exports/avatars?ownerId=u1')).toBeUndefined()
  expect(ownerKeyOfPath('/api/v1/guilds/g1/members')).toBeUndefined()
})
