#!/usr/bin/env node
// The `questline` command, and what `npm start` runs: the platform as `npm install` built it
// (dist/questline.js, see scripts/build.ts). When src/ or web/ changed since, it builds them
// again first, here in this process; otherwise starting costs a few file times.
import { isStale, SERVER, WEB } from '../scripts/outputs.js'

const stale = { server: isStale(SERVER), web: isStale(WEB) }
if (stale.server || stale.web) {
  // The build scripts are TypeScript: tsx only for them, and only now.
  const { register } = await import('tsx/esm/api')
  const unregister = register()
  const { buildServer } = await import('../scripts/build.ts')
  const { buildWebApp } = await import('../scripts/build-web.ts')
  if (stale.server) {
    console.error('questline: src/ changed since the last build; bundling it again (dist/)')
    await buildServer()
  }
  if (stale.web) {
    console.error('questline: web/ changed since the last build; building the web app again (web/dist)')
    await buildWebApp()
  }
  await unregister()
}
await import('../dist/questline.js')
