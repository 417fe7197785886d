/** The avatars both the platform and the floor are measured on: one hot avatar and a spread of many. */
export const SPREAD_AVATARS = 1000
/** Avatars each bench player creates for the spread (the platform allows 10 besides the registration avatar). */
export const SPREAD_PER_PLAYER = 10

/** The spread's ids, the same on the platform and on the floor. */
export const spreadIds = (n = SPREAD_AVATARS): string[] => Array.from({ length: n }, (_, i) => `spread-${String(i).padStart(4, '0')}`)
