/** The marketplace's problem types (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const MARKETPLACE_PROBLEMS: ProblemCatalog = {
  'level-too-low': { status: 400, rule: true, title: 'Level too low', description: 'The item needs a higher level than the avatar has (or than the level stated); `detail` gives both.' },
}
